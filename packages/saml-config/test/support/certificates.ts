import { generateKeyPairSync } from 'node:crypto';
import { type GeneratedCertificate, type GenerateParameters, generateCertificate } from '../../src/index.js';

const DAY_MS = 86_400_000;
const cache = new Map<string, Promise<GeneratedCertificate>>();

/**
 * A self-signed test certificate made with the package's own generator. `issuedDaysAgo` moves the
 * issuing clock (and so notBefore/notAfter) into the past (positive) or future (negative). Cached per
 * argument set, because RSA key generation is the slow part of these tests.
 */
export function testCertificate(
  options: {
    issuedDaysAgo?: number;
    days?: number;
    digest?: GenerateParameters['digest'];
    keyBits?: number;
    commonName?: string;
  } = {},
): Promise<GeneratedCertificate> {
  const key = JSON.stringify(options);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const now = new Date(Date.now() - (options.issuedDaysAgo ?? 0) * DAY_MS);
  const parameters = {
    days: options.days ?? 365,
    digest: options.digest ?? 'SHA-256',
    keyBits: (options.keyBits ?? 2048) as 2048,
  };
  const pending = generateCertificate(options.commonName ?? 'idp.example', parameters, now);
  cache.set(key, pending);
  return pending;
}

/** A PKCS#1 (`BEGIN RSA PRIVATE KEY`) PEM of a fresh 2048-bit key. */
export function pkcs1KeyPem(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return String(privateKey.export({ type: 'pkcs1', format: 'pem' }));
}

/** An EC P-256 key as PKCS#8 PEM. */
export function ecKeyPem(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return String(privateKey.export({ type: 'pkcs8', format: 'pem' }));
}

/** An encrypted PKCS#8 PEM. */
export function encryptedKeyPem(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return String(
    privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'secret' }),
  );
}

/** Body of a PEM without headers or whitespace. */
export function pemBody(pem: string): string {
  return pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, '');
}
