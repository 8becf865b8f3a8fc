import { SignedXml } from 'xml-crypto';
import { keyMatchesCertificate } from '../certificates/inspect.js';
import { readCertificate, readPrivateKey } from '../certificates/pem.js';
import type { SamlIssue } from '../model/issues.js';
import { digestAlgorithms, type SamlProperties, signatureAlgorithms } from '../model/property-definitions.js';
import { registerSha384Algorithms } from './sha384-algorithms.js';

/** The signed document, or why it could not be signed (as a `metadata_not_signed` warning). */
export type SignMetadataResult = { ok: true; xml: string } | { ok: false; warning: SamlIssue };

const EXCLUSIVE_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const ENVELOPED_SIGNATURE = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
const ENTITY_DESCRIPTOR =
  "/*[local-name(.)='EntityDescriptor' and namespace-uri(.)='urn:oasis:names:tc:SAML:2.0:metadata']";

function notSigned(key: string, message: string): SignMetadataResult {
  return { ok: false, warning: { code: 'metadata_not_signed', key, message } };
}

function stringProperty(
  properties: SamlProperties,
  key: 'sp.privatekey' | 'sp.x509cert',
): string | undefined {
  const value = properties[key];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/**
 * Signs SP metadata as java-saml does when `security.sign_metadata` is true: an enveloped XML-DSig
 * signature, first child of the EntityDescriptor, whose one reference (`#<ID>`) covers the whole
 * descriptor with the enveloped-signature and exclusive canonicalisation transforms; the configured
 * `security.signature_algorithm` and `security.digest_algorithm` (rsa-sha256 and sha256 when unset),
 * `sp.privatekey`, and `sp.x509cert` in KeyInfo/X509Data. Canonicalisation is xml-crypto's, not ours.
 * A missing, unreadable or mismatched key or certificate is not thrown: it comes back as a
 * `metadata_not_signed` warning naming the property, so the caller can still serve the document.
 */
export function signSpMetadata(xml: string, properties: SamlProperties): SignMetadataResult {
  const keyText = stringProperty(properties, 'sp.privatekey');
  const certificateText = stringProperty(properties, 'sp.x509cert');
  if (keyText === undefined) {
    return notSigned('sp.privatekey', 'sp.privatekey is missing; the metadata is served unsigned');
  }
  if (certificateText === undefined) {
    return notSigned('sp.x509cert', 'sp.x509cert is missing; the metadata is served unsigned');
  }
  const key = readPrivateKey(keyText);
  if (!key.ok) {
    return notSigned(
      'sp.privatekey',
      `sp.privatekey is unusable (${key.message}); the metadata is served unsigned`,
    );
  }
  const certificate = readCertificate(certificateText);
  if (!certificate.ok) {
    return notSigned(
      'sp.x509cert',
      `sp.x509cert is unusable (${certificate.message}); the metadata is served unsigned`,
    );
  }
  if (!keyMatchesCertificate(certificate.certificate, key.key)) {
    return notSigned(
      'sp.privatekey',
      'sp.privatekey is not the private key of sp.x509cert, so no one could verify a signature; the metadata is served unsigned',
    );
  }
  const signer = new SignedXml({
    privateKey: key.pem,
    publicCert: certificate.pem,
    idAttribute: 'ID',
    signatureAlgorithm: properties['security.signature_algorithm'] ?? signatureAlgorithms.rsaSha256,
    canonicalizationAlgorithm: EXCLUSIVE_C14N,
  });
  registerSha384Algorithms(signer);
  signer.addReference({
    xpath: ENTITY_DESCRIPTOR,
    transforms: [ENVELOPED_SIGNATURE, EXCLUSIVE_C14N],
    digestAlgorithm: properties['security.digest_algorithm'] ?? digestAlgorithms.sha256,
  });
  try {
    signer.computeSignature(xml, {
      prefix: 'ds',
      location: { reference: ENTITY_DESCRIPTOR, action: 'prepend' },
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message.slice(0, 200) : 'unknown error';
    return notSigned(
      'sp.privatekey',
      `signing the metadata failed (${reason}); the metadata is served unsigned`,
    );
  }
  return { ok: true, xml: signer.getSignedXml() };
}
