import type { KeyObject, X509Certificate } from 'node:crypto';
import { PeculiarCertificate } from './x509-runtime.js';

/** Facts about a certificate, safe to show (no key material). */
export interface CertificateSummary {
  subject: string;
  issuer: string;
  serialNumber: string;
  /** ISO 8601. */
  notBefore: string;
  /** ISO 8601. */
  notAfter: string;
  /** Whole days from `now` until `notAfter` (negative once expired). */
  daysRemaining: number;
  /** SHA-256 fingerprint, colon-separated upper-case hex. */
  fingerprintSha256: string;
  /** `rsa`, `ec`, ... */
  publicKeyType: string;
  /** RSA modulus length in bits, when RSA. */
  publicKeyBits?: number;
  /** Hash of the certificate's own signature, such as `SHA-256`. */
  signatureHash?: string;
  selfSigned: boolean;
}

const DAY_MS = 86_400_000;

function signatureHash(certificate: X509Certificate): string | undefined {
  try {
    const parsed = new PeculiarCertificate(certificate.raw);
    const algorithm = parsed.signatureAlgorithm as { hash?: { name?: string } };
    return algorithm.hash?.name;
  } catch {
    return undefined;
  }
}

/** Describes a parsed certificate relative to `now`. */
export function summarizeCertificate(certificate: X509Certificate, now: Date): CertificateSummary {
  const notBefore = new Date(certificate.validFrom);
  const notAfter = new Date(certificate.validTo);
  const publicKey = certificate.publicKey;
  const summary: CertificateSummary = {
    subject: certificate.subject.replaceAll('\n', ', '),
    issuer: certificate.issuer.replaceAll('\n', ', '),
    serialNumber: certificate.serialNumber,
    notBefore: notBefore.toISOString(),
    notAfter: notAfter.toISOString(),
    daysRemaining: Math.floor((notAfter.getTime() - now.getTime()) / DAY_MS),
    fingerprintSha256: certificate.fingerprint256,
    publicKeyType: publicKey.asymmetricKeyType ?? 'unknown',
    selfSigned: certificate.checkIssued(certificate),
  };
  const bits = publicKey.asymmetricKeyDetails?.modulusLength;
  if (bits !== undefined) summary.publicKeyBits = bits;
  const hash = signatureHash(certificate);
  if (hash !== undefined) summary.signatureHash = hash;
  return summary;
}

/** Whether `privateKey` is the private half of the certificate's public key. */
export function keyMatchesCertificate(certificate: X509Certificate, privateKey: KeyObject): boolean {
  try {
    return certificate.checkPrivateKey(privateKey);
  } catch {
    return false;
  }
}
