import { randomBytes, webcrypto } from 'node:crypto';

type CryptoKeyPair = webcrypto.CryptoKeyPair;

import {
  BasicConstraintsExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  PemConverter,
  SubjectKeyIdentifierExtension,
  X509CertificateGenerator,
} from '../certificates/x509-runtime.js';
import type { GenerateParameters } from './generate-parameters.js';

/** A generated certificate and its key, both PEM. */
export interface GeneratedCertificate {
  /** `BEGIN CERTIFICATE` PEM. */
  certificatePem: string;
  /** PKCS#8 `BEGIN PRIVATE KEY` PEM. Secret: never log it. */
  privateKeyPem: string;
}

/** Back-dating of notBefore, so an IdP whose clock runs a little behind accepts the certificate at once. */
const CLOCK_SKEW_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

function subjectOf(commonName: string, parameters: GenerateParameters): Record<string, string[]>[] {
  const name: Record<string, string[]>[] = [];
  if (parameters.country !== undefined) name.push({ C: [parameters.country] });
  if (parameters.state !== undefined) name.push({ ST: [parameters.state] });
  if (parameters.location !== undefined) name.push({ L: [parameters.location] });
  if (parameters.organization !== undefined) name.push({ O: [parameters.organization] });
  if (parameters.organizationalUnit !== undefined) name.push({ OU: [parameters.organizationalUnit] });
  name.push({ CN: [commonName] });
  return name;
}

/** A positive 128-bit serial number in hex (top bit cleared so DER keeps it positive). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f || 0x01;
  return bytes.toString('hex');
}

/**
 * Generates a self-signed X.509 v3 certificate for signing SAML messages: RSA key of
 * `parameters.keyBits`, RSASSA-PKCS1-v1_5 with `parameters.digest`, subject built structurally from
 * the parameters with CN = `commonName` (so no value can inject another attribute), validity
 * `parameters.days` from `now` (back-dated 5 minutes), basicConstraints CA=false, keyUsage
 * digitalSignature + keyEncipherment, subject key identifier.
 */
export async function generateCertificate(
  commonName: string,
  parameters: GenerateParameters,
  now: Date,
): Promise<GeneratedCertificate> {
  const algorithm = {
    name: 'RSASSA-PKCS1-v1_5',
    modulusLength: parameters.keyBits,
    publicExponent: new Uint8Array([1, 0, 1]),
    // The generator takes the signing hash from the key, so the key must carry the chosen digest.
    hash: parameters.digest,
  };
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
  const notBefore = new Date(now.getTime() - CLOCK_SKEW_MS);
  const certificate = await X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: subjectOf(commonName, parameters),
    notBefore,
    notAfter: new Date(now.getTime() + parameters.days * DAY_MS),
    keys,
    signingAlgorithm: { name: 'RSASSA-PKCS1-v1_5', hash: parameters.digest } as webcrypto.Algorithm,
    extensions: [
      new BasicConstraintsExtension(false, undefined, true),
      new KeyUsagesExtension(KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment, true),
      await SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return {
    certificatePem: `${certificate.toString('pem')}\n`,
    privateKeyPem: `${PemConverter.encode(pkcs8, 'PRIVATE KEY')}\n`,
  };
}
