import { generateCertificate } from '@collab-suite/saml-config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  idpMetadata,
  idpProperties,
  openssl,
  type SamlClient,
  startSamlServer,
  testCertificate,
} from './saml-test-support.js';

let api: SamlClient;
beforeAll(async () => {
  api = await startSamlServer();
});
afterAll(() => api.stop());

const codes = (issues: { code: string }[]) => issues.map((issue) => issue.code);

describe('GET /saml-validate/{domain} and POST /saml-validate', () => {
  it('answers 200 with the properties for a valid domain, with warnings and IdP expiry in headers', async () => {
    await api.call('POST', '/saml/valid.example', { json: await idpProperties() });
    const response = await api.call('GET', '/saml-validate/valid.example');
    expect(response.status).toBe(200);
    expect(response.body['idp.entityid']).toBe('https://idp.example.org/metadata');
    expect(response.body['sp.entityid']).toBe(
      'https://mail.example.com/zx/auth/samlMetadata?domain=valid.example',
    );
    expect(response.headers.get('x-saml-warnings')).toBe('no_signature_required');
    expect(response.headers.get('x-saml-idp-cert-not-after')).toMatch(/^\d{4}-\d\d-\d\dT/);
    const details = await api.call('GET', '/saml-validate/valid.example?details=true');
    expect(details.body).toMatchObject({
      ok: true,
      errors: [],
      properties: { 'idp.entityid': 'https://idp.example.org/metadata' },
    });
    expect(details.body.certificates.idp).toMatchObject({
      subject: 'CN=idp.example.org',
      publicKeyBits: 2048,
      signatureHash: 'SHA-256',
    });
    expect([364, 365]).toContain(details.body.certificates.idp.daysRemaining);
  });

  it('answers 400 { ok: false, error, errors, warnings } with java-saml codes for an incomplete domain', async () => {
    await api.call('PUT', '/saml/incomplete.example', { json: { 'security.authnrequest_signed': true } });
    const response = await api.call('GET', '/saml-validate/incomplete.example');
    expect(response.status).toBe(400);
    expect(response.body.ok).toBe(false);
    expect(response.body.error).toBe(
      'security.authnrequest_signed needs both sp.x509cert and sp.privatekey (POST /saml-generate creates them) (and 3 more)',
    );
    expect(codes(response.body.errors)).toEqual([
      'sp_cert_not_found_and_required',
      'idp_entityId_not_found',
      'idp_sso_url_invalid',
      'idp_cert_or_fingerprint_not_found_and_required',
    ]);
    expect(codes(response.body.warnings)).toEqual(['no_signature_required']);
  });

  it('reports a soon expiring IdP certificate and a key that does not match the SP certificate', async () => {
    const soon = await generateCertificate(
      'idp.example.org',
      { days: 365, digest: 'SHA-256', keyBits: 2048 },
      new Date(Date.now() - 355 * 86_400_000),
    );
    const sp = await testCertificate('sp.example.com');
    const other = await testCertificate('other.example.com');
    await api.call('POST', '/saml/expiring.example', {
      json: {
        ...(await idpProperties()),
        'idp.x509cert': soon.certificatePem,
        'sp.x509cert': sp.certificatePem,
        'sp.privatekey': other.privateKeyPem,
      },
    });
    const response = await api.call('GET', '/saml-validate/expiring.example');
    expect(response.status).toBe(400);
    expect(codes(response.body.errors)).toEqual(['sp_cert_privatekey_mismatch']);
    expect(codes(response.body.warnings)).toEqual(['no_signature_required', 'idp_cert_expiring_soon']);
    expect(response.body.certificates.idp.daysRemaining).toBeLessThan(30);
  });

  it('validates a JSON, XML or metadata document in the body without storing it', async () => {
    const json = await api.call('POST', '/saml-validate', {
      json: {
        ...(await idpProperties()),
        'sp.entityid': 'urn:sp',
        'sp.assertion_consumer_service.url': 'https://sp.example/acs',
      },
    });
    expect(json.status).toBe(200);
    expect(json.body['sp.entityid']).toBe('urn:sp');
    const xml = await api.call('POST', '/saml-validate', {
      body: '<SAMLProperties><sp.entityid>urn:sp</sp.entityid><bogus>1</bogus></SAMLProperties>',
      contentType: 'application/xml',
    });
    expect(xml.status).toBe(400);
    expect(codes(xml.body.errors).slice(0, 2)).toEqual(['unknown_key', 'sp_acs_not_found']);
    const metadata = await api.call('POST', '/saml-validate?details=true', {
      body: idpMetadata((await testCertificate()).certificatePem),
      contentType: 'application/xml',
    });
    expect(metadata.status).toBe(200);
    expect(metadata.body.ok).toBe(true);
    expect((await api.call('POST', '/saml-validate')).body.error).toContain(
      'expected a JSON or XML document',
    );
  });
});

describe('POST /saml-generate/{domain}', () => {
  it('stores a certificate and PKCS#8 key that the openssl CLI accepts and that match', async () => {
    const response = await api.call('POST', '/saml-generate/gen.example');
    expect(response.status).toBe(200);
    const exported = (await api.call('GET', '/saml/gen.example?keys=sp.x509cert,sp.privatekey')).body;
    const certificate: string = exported['sp.x509cert'];
    const key: string = exported['sp.privatekey'];
    expect(response.body['sp.x509cert']).toBe(certificate);
    expect(key.startsWith('-----BEGIN PRIVATE KEY-----\n')).toBe(true);
    const text = openssl(certificate, 'x509', '-noout', '-text');
    expect(text).toContain('Signature Algorithm: sha256WithRSAEncryption');
    expect(text).toContain('Public-Key: (2048 bit)');
    expect(text).toMatch(/Subject: CN ?= ?gen\.example\n/);
    expect(openssl(key, 'pkey', '-check', '-noout')).toContain('Key is valid');
    expect(openssl(key, 'rsa', '-check', '-noout')).toContain('RSA key ok');
    expect(openssl(key, 'rsa', '-noout', '-modulus')).toBe(
      openssl(certificate, 'x509', '-noout', '-modulus'),
    );
    const start = new Date(openssl(certificate, 'x509', '-noout', '-startdate').trim().split('=')[1] ?? '');
    const end = new Date(openssl(certificate, 'x509', '-noout', '-enddate').trim().split('=')[1] ?? '');
    expect(Math.round((end.getTime() - start.getTime()) / 86_400_000)).toBe(365);
  });

  it('keeps a DN-injection attempt inside the organization attribute', async () => {
    const organization = encodeURIComponent('Acme, Inc.,CN=evil.example/OU=x');
    const response = await api.call(
      'POST',
      `/saml-generate/dn.example?organization=${organization}&country=it&digest=SHA512&days=30`,
    );
    expect(response.status).toBe(200);
    const subject = openssl(
      response.body['sp.x509cert'],
      'x509',
      '-noout',
      '-subject',
      '-nameopt',
      'multiline',
    );
    expect(subject.match(/commonName/g)).toHaveLength(1);
    expect(subject).toContain('commonName                = dn.example');
    expect(subject).toContain('organizationName          = Acme, Inc.,CN=evil.example/OU=x');
    expect(subject).toContain('countryName               = IT');
    expect(openssl(response.body['sp.x509cert'], 'x509', '-noout', '-text')).toContain(
      'sha512WithRSAEncryption',
    );
  });

  it.each([
    ['country=ITA', 'country: expected a two-letter country code'],
    ['days=0', 'days: expected a whole number of days'],
    ['days=abc', 'days'],
    ['digest=MD5', 'digest'],
    ['encryption=EC', 'encryption'],
    ['organization=Acme%0ACN%3Devil', 'organization: expected 1 to 64 characters without control characters'],
    ['commonName=evil.example', 'unknown query parameter "commonName"'],
  ])('answers 400 for %s and stores nothing', async (query, message) => {
    const response = await api.call('POST', `/saml-generate/refused.example?${query}`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ ok: false, error: expect.stringContaining(message) });
    expect((await api.call('GET', '/saml/refused.example?raw=true')).body).toEqual({});
  });

  it('flags SHA-1 in X-Saml-Warnings', async () => {
    const response = await api.call('POST', '/saml-generate/sha1.example?digest=SHA1');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-saml-warnings')).toBe('cert_signed_with_sha1');
  });
});

describe('round trip and SP metadata', () => {
  it('generate, export (GET), import into another domain, validate', async () => {
    await api.call('POST', '/saml/source.example', { json: await idpProperties() });
    await api.call('POST', '/saml-generate/source.example?organization=Acme');
    await api.call('PUT', '/saml/source.example', {
      json: { 'security.authnrequest_signed': true, 'security.want_assertions_signed': true },
    });
    const exported = (await api.call('GET', '/saml/source.example')).body;
    const imported = await api.call('POST', '/saml/target.example?validate=true', { json: exported });
    expect(imported.status).toBe(200);
    const validated = await api.call('GET', '/saml-validate/target.example?details=true');
    expect(validated.status).toBe(200);
    expect(validated.body).toMatchObject({ ok: true, errors: [], warnings: [] });
    expect((await api.call('GET', '/saml/target.example')).body).toEqual(exported);
  });

  it('serves SP metadata XML with the SP certificate and the signing flags, signed when sign_metadata is true and the key is there', async () => {
    await api.call('POST', '/saml-generate/metadata.example');
    await api.call('PUT', '/saml/metadata.example', { json: { 'security.authnrequest_signed': true } });
    const response = await api.call('GET', '/saml-metadata/metadata.example');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/samlmetadata+xml; charset=utf-8');
    expect(response.text).toContain(
      'entityID="https://mail.example.com/zx/auth/samlMetadata?domain=metadata.example"',
    );
    expect(response.text).toContain('AuthnRequestsSigned="true"');
    expect(response.text).toContain('<ds:X509Certificate>MII');
    expect(response.text).not.toContain('PRIVATE');
    expect(response.headers.get('x-saml-warnings')).toBeNull();
    expect(response.text).not.toContain('<ds:Signature');
    await api.call('PUT', '/saml/metadata.example', { json: { 'security.sign_metadata': true } });
    const signed = await api.call('GET', '/saml-metadata/metadata.example');
    expect(signed.status).toBe(200);
    expect(signed.headers.get('x-saml-warnings')).toBeNull();
    expect(signed.text).toMatch(/<md:EntityDescriptor [^>]*ID="(_[^"]+)"[^>]*><ds:Signature /);
    expect(signed.text).toContain('<ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>');
    expect(signed.text).not.toContain('PRIVATE');
    await api.call('PUT', '/saml/metadata.example', { json: { 'sp.privatekey': null } });
    const unsigned = await api.call('GET', '/saml-metadata/metadata.example');
    expect(unsigned.status).toBe(200);
    expect(unsigned.headers.get('x-saml-warnings')).toBe('metadata_not_signed');
    expect(unsigned.text).not.toContain('<ds:Signature');
  });
});

describe('SAML_CERT_EXPIRY_WARNING_DAYS', () => {
  it('warns about an IdP certificate expiring within the configured days only', async () => {
    const yearLong = await testCertificate('idp.example.org');
    const cautious = await startSamlServer({ env: { SAML_CERT_EXPIRY_WARNING_DAYS: '400' } });
    try {
      for (const client of [api, cautious]) {
        await client.call('POST', '/saml/horizon.example', {
          json: { ...(await idpProperties()), 'idp.x509cert': yearLong.certificatePem },
        });
      }
      const relaxed = await api.call('GET', '/saml-validate/horizon.example');
      expect(relaxed.headers.get('x-saml-warnings')).toBe('no_signature_required');
      const warned = await cautious.call('GET', '/saml-validate/horizon.example');
      expect(warned.status).toBe(200);
      expect(warned.headers.get('x-saml-warnings')).toBe('no_signature_required, idp_cert_expiring_soon');
    } finally {
      await cautious.stop();
    }
  });
});
