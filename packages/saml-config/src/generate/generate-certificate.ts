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

type SubjectName = Parameters<typeof X509CertificateGenerator.createSelfSigned>[0]['name'];

/** The characters of an ASN.1 PrintableString. */
const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

/**
 * A subject value as it is, typed: given as text, the library would read `#...` as hex DER (and
 * throw on anything else) and strip quotes and backslashes, so a value such as `#1 Street` or
 * `"Acme"` would fail or change.
 */
function attributeValue(value: string): { printableString: string } | { utf8String: string } {
  return PRINTABLE.test(value) ? { printableString: value } : { utf8String: value };
}

function subjectOf(
  commonName: string,
  parameters: GenerateParameters,
): Record<string, ReturnType<typeof attributeValue>[]>[] {
  const fields: [string, string | undefined][] = [
    ['C', parameters.country],
    ['ST', parameters.state],
    ['L', parameters.location],
    ['O', parameters.organization],
    ['OU', parameters.organizationalUnit],
    ['CN', commonName],
  ];
  return fields.flatMap(([type, value]) =>
    value === undefined ? [] : [{ [type]: [attributeValue(value)] }],
  );
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
    // The library's types list text values only; its parser takes typed ones (as used here) too.
    name: subjectOf(commonName, parameters) as unknown as SubjectName,
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
