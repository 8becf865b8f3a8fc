import { describe, expect, it } from 'vitest';
import {
  ecKeyPem,
  encryptedKeyPem,
  pemBody,
  pkcs1KeyPem,
  testCertificate,
} from '../../test/support/certificates.js';
import { readCertificate, readPrivateKey } from './pem.js';

describe('readCertificate', () => {
  it('stores PEM, one-line PEM, CRLF PEM, headerless base64 and &#13; leftovers as the same canonical PEM', async () => {
    const { certificatePem } = await testCertificate();
    const body = pemBody(certificatePem);
    const variants = [
      certificatePem,
      `-----BEGIN CERTIFICATE-----${body}-----END CERTIFICATE-----`,
      certificatePem.replaceAll('\n', '\r\n'),
      body,
      `  ${body.match(/.{1,76}/g)?.join('&#13;\n')}  `,
    ];
    const results = variants.map((variant) => readCertificate(variant));
    for (const result of results) {
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.pem).toBe(results[0]?.ok ? results[0].pem : '');
    }
    const first = results[0];
    expect(first?.ok && first.pem.split('\n').every((line) => line.length <= 64)).toBe(true);
    expect(first?.ok && first.pem.endsWith('-----END CERTIFICATE-----\n')).toBe(true);
  });

  it('refuses random base64, non-base64 text, a private key and two certificates, with messages that say so', async () => {
    const { certificatePem, privateKeyPem } = await testCertificate();
    const random = readCertificate(Buffer.alloc(300, 7).toString('base64'));
    expect(random).toMatchObject({ ok: false, message: expect.stringContaining('does not decode') });
    expect(readCertificate('not a certificate!')).toMatchObject({
      ok: false,
      message: expect.stringContaining('not base64'),
    });
    const key = readCertificate(privateKeyPem);
    expect(key).toMatchObject({ ok: false, message: 'expected a certificate but received a private key' });
    expect(readCertificate(certificatePem + certificatePem)).toMatchObject({
      ok: false,
      message: expect.stringContaining('2 PEM blocks'),
    });
  });
});

describe('readCertificate: base64 of a whole PEM text', () => {
  const encode = (text: string) => Buffer.from(text, 'latin1').toString('base64');

  it('stores base64 of a PEM certificate (LF or CRLF, on one line or wrapped) as the same canonical PEM', async () => {
    const { certificatePem } = await testCertificate();
    const variants = [
      encode(certificatePem),
      encode(certificatePem.replaceAll('\n', '\r\n')),
      encode(`\n  ${certificatePem}`)
        .match(/.{1,76}/g)
        ?.join('\r\n') ?? '',
    ];
    for (const variant of variants) {
      const result = readCertificate(variant);
      expect(result.ok && result.pem).toBe(certificatePem);
    }
  });

  it('refuses base64 of a private key, of two certificates, of a PEM with a broken body, and base64 twice over', async () => {
    const { certificatePem, privateKeyPem } = await testCertificate();
    expect(readCertificate(encode(privateKeyPem))).toEqual({
      ok: false,
      reason: 'invalid',
      message: 'expected a certificate but received base64 of a private key',
    });
    expect(readCertificate(encode(certificatePem + certificatePem))).toMatchObject({
      ok: false,
      message: 'expected one certificate but received base64 of 2 PEM blocks',
    });
    expect(
      readCertificate(encode('-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n')),
    ).toMatchObject({ ok: false, message: expect.stringContaining('decoded PEM text is not base64') });
    expect(readCertificate(encode(encode(certificatePem)))).toMatchObject({
      ok: false,
      message: expect.stringContaining('base64 of a PEM certificate) but the base64 does not decode to one'),
    });
  });
});

describe('readPrivateKey', () => {
  it('converts a PKCS#1 RSA key to PKCS#8, also when given on one line without headers', () => {
    const pkcs1 = pkcs1KeyPem();
    expect(pkcs1).toContain('BEGIN RSA PRIVATE KEY');
    const converted = readPrivateKey(pkcs1);
    expect(converted.ok && converted.pem.startsWith('-----BEGIN PRIVATE KEY-----\n')).toBe(true);
    const headerless = readPrivateKey(pemBody(pkcs1));
    expect(headerless.ok && converted.ok && headerless.pem === converted.pem).toBe(true);
  });

  it('keeps a PKCS#8 key as canonical PKCS#8 PEM', async () => {
    const { privateKeyPem } = await testCertificate();
    const result = readPrivateKey(privateKeyPem.replaceAll('\n', '\r\n'));
    expect(result.ok && result.pem).toBe(privateKeyPem);
  });

  it('refuses encrypted keys, EC keys and garbage without echoing key material', () => {
    const encrypted = encryptedKeyPem();
    const ec = ecKeyPem();
    const results = [
      readPrivateKey(encrypted),
      readPrivateKey(ec),
      readPrivateKey(Buffer.alloc(64, 1).toString('base64')),
    ];
    expect(results.map((result) => (result.ok ? 'ok' : result.reason))).toEqual([
      'encrypted',
      'not_rsa',
      'invalid',
    ]);
    for (const result of results) {
      if (!result.ok) {
        expect(result.message).not.toContain(pemBody(encrypted).slice(0, 20));
        expect(result.message).not.toContain(pemBody(ec).slice(0, 20));
      }
    }
  });
});
