// @peculiar/x509 2.x resolves its services through tsyringe, which needs the Reflect polyfill loaded
// before the library's first import. Every module of this package imports x509 from here.
import 'reflect-metadata';

export {
  BasicConstraintsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  PemConverter,
  SubjectKeyIdentifierExtension,
  X509Certificate as PeculiarCertificate,
  X509CertificateGenerator,
} from '@peculiar/x509';
