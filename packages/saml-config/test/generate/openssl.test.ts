import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCertificate } from '../../src/index.js';

const folder = mkdtempSync(join(tmpdir(), 'saml-openssl-'));

function openssl(...args: string[]): string {
  return execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function files(name: string, certificatePem: string, privateKeyPem: string) {
  const certificate = join(folder, `${name}.crt`);
  const key = join(folder, `${name}.key`);
  writeFileSync(certificate, certificatePem);
  writeFileSync(key, privateKeyPem);
  return { certificate, key };
}

describe('generated certificates, checked with the openssl CLI', () => {
  it('makes a self-signed RSA-2048 SHA-256 v3 certificate whose PKCS#8 key checks and matches', async () => {
    const generated = await generateCertificate(
      'example.com',
      { days: 365, digest: 'SHA-256', keyBits: 2048 },
      new Date(),
    );
    expect(generated.privateKeyPem.startsWith('-----BEGIN PRIVATE KEY-----\n')).toBe(true);
    const { certificate, key } = files('default', generated.certificatePem, generated.privateKeyPem);
    const text = openssl('x509', '-in', certificate, '-noout', '-text');
    expect(text).toContain('Version: 3 (0x2)');
    expect(text).toContain('Signature Algorithm: sha256WithRSAEncryption');
    expect(text).toContain('Public-Key: (2048 bit)');
    expect(text).toMatch(/Subject: CN ?= ?example\.com/);
    expect(text).toMatch(/Issuer: CN ?= ?example\.com/);
    expect(text).toMatch(/X509v3 Basic Constraints: critical\s+CA:FALSE/);
    expect(text).toMatch(/X509v3 Key Usage: critical\s+Digital Signature, Key Encipherment/);
    expect(text).toContain('X509v3 Subject Key Identifier');
    expect(openssl('pkey', '-in', key, '-check', '-noout')).toContain('Key is valid');
    expect(openssl('rsa', '-in', key, '-check', '-noout')).toContain('RSA key ok');
    const certificateModulus = openssl('x509', '-in', certificate, '-noout', '-modulus');
    const keyModulus = openssl('rsa', '-in', key, '-noout', '-modulus');
    expect(certificateModulus).toMatch(/^Modulus=[0-9A-F]{512}\n$/);
    expect(keyModulus).toBe(certificateModulus);
    expect(openssl('verify', '-CAfile', certificate, certificate)).toContain(': OK');
    const dates = openssl('x509', '-in', certificate, '-noout', '-startdate', '-enddate');
    const [start, end] = dates
      .trim()
      .split('\n')
      .map((line) => new Date(line.split('=')[1] ?? ''));
    expect(Math.round(((end?.getTime() ?? 0) - (start?.getTime() ?? 0)) / 60_000)).toBe(365 * 24 * 60 + 5);
  });

  it('honours digest, key size, validity and a structured subject that no value can inject into', async () => {
    const generated = await generateCertificate(
      'example.com',
      {
        days: 30,
        digest: 'SHA-512',
        keyBits: 4096,
        country: 'IT',
        state: 'VI',
        location: 'Vicenza',
        organization: 'Acme, Inc.,CN=evil.example',
        organizationalUnit: 'R+D',
      },
      new Date(),
    );
    const { certificate, key } = files('custom', generated.certificatePem, generated.privateKeyPem);
    const text = openssl('x509', '-in', certificate, '-noout', '-text');
    expect(text).toContain('Signature Algorithm: sha512WithRSAEncryption');
    expect(text).toContain('Public-Key: (4096 bit)');
    const subject = openssl('x509', '-in', certificate, '-noout', '-subject', '-nameopt', 'RFC2253').trim();
    expect(subject).toBe(
      'subject=CN=example.com,OU=R\\+D,O=Acme\\, Inc.\\,CN=evil.example,L=Vicenza,ST=VI,C=IT',
    );
    const fields = openssl('x509', '-in', certificate, '-noout', '-subject', '-nameopt', 'multiline');
    expect(fields.match(/commonName/g)).toHaveLength(1);
    expect(fields).toContain('organizationName          = Acme, Inc.,CN=evil.example');
    const end = new Date(
      openssl('x509', '-in', certificate, '-noout', '-enddate').trim().split('=')[1] ?? '',
    );
    const start = new Date(
      openssl('x509', '-in', certificate, '-noout', '-startdate').trim().split('=')[1] ?? '',
    );
    expect(Math.round((end.getTime() - start.getTime()) / 60_000)).toBe(30 * 24 * 60 + 5);
    expect(openssl('pkey', '-in', key, '-check', '-noout')).toContain('Key is valid');
    expect(openssl('rsa', '-in', key, '-noout', '-modulus')).toBe(
      openssl('x509', '-in', certificate, '-noout', '-modulus'),
    );
  }, 60_000);

  it('signs with SHA-1 when asked (the key carries the digest, not only signingAlgorithm)', async () => {
    const generated = await generateCertificate(
      'example.com',
      { days: 1, digest: 'SHA-1', keyBits: 2048 },
      new Date(),
    );
    const { certificate } = files('sha1', generated.certificatePem, generated.privateKeyPem);
    expect(openssl('x509', '-in', certificate, '-noout', '-text')).toContain(
      'Signature Algorithm: sha1WithRSAEncryption',
    );
  });
  it('keeps subject values that start with # or hold quotes and backslashes as they are', async () => {
    const generated = await generateCertificate(
      'example.com',
      {
        days: 30,
        digest: 'SHA-256',
        keyBits: 2048,
        location: '#d)oksyl',
        organization: '"Acme" \\ Sons',
        organizationalUnit: 'Zürich',
      },
      new Date(),
    );
    const { certificate } = files('verbatim', generated.certificatePem, generated.privateKeyPem);
    const subject = openssl('x509', '-in', certificate, '-noout', '-subject', '-nameopt', 'RFC2253,-esc_msb');
    expect(subject).toContain('L=\\#d)oksyl');
    expect(subject).toContain('O=\\"Acme\\" \\\\ Sons');
    expect(subject).toContain('OU=Zürich');
  });
});
