import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type SamlClient, startSamlServer, testCertificate } from './saml-test-support.js';

let api: SamlClient;
beforeAll(async () => {
  api = await startSamlServer();
});
afterAll(() => api.stop());

describe('SAML API: administrators only', () => {
  const routes: [string, string][] = [
    ['GET', '/saml/example.com'],
    ['PUT', '/saml/example.com'],
    ['POST', '/saml/example.com'],
    ['DELETE', '/saml/example.com'],
    ['GET', '/saml-validate/example.com'],
    ['POST', '/saml-validate'],
    ['POST', '/saml-generate/example.com'],
    ['GET', '/saml-metadata/example.com'],
  ];

  it.each(routes)(
    '%s %s answers 401 without a token and 403 with a non-admin token',
    async (method, path) => {
      const anonymous = await api.call(method, path, { as: 'none' });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ ok: false, error: expect.any(String) });
      const user = await api.call(method, path, { as: 'user' });
      expect(user.status).toBe(403);
      expect(user.body).toEqual({ ok: false, error: 'this operation is for administrators only' });
    },
  );

  it('stored nothing for the refused requests', async () => {
    expect((await api.call('GET', '/saml/example.com?raw=true')).body).toEqual({});
  });
});

describe('GET, PUT and DELETE /saml/{domain}', () => {
  it('GET applies defaults (SP URLs from PUBLIC_URL) unless raw=true, and filters by keys', async () => {
    const effective = await api.call('GET', '/saml/read.example');
    expect(effective.status).toBe(200);
    expect(effective.body).toMatchObject({
      'sp.entityid': 'https://mail.example.com/zx/auth/samlMetadata?domain=read.example',
      'sp.assertion_consumer_service.url': 'https://mail.example.com/zx/auth/saml',
      'security.want_xml_validation': true,
      'security.authnrequest_signed': false,
    });
    expect((await api.call('GET', '/saml/read.example?raw=true')).body).toEqual({});
    const picked = await api.call(
      'GET',
      '/saml/read.example?keys=sp.nameidformat,security.want_xml_validation',
    );
    expect(picked.body).toEqual({
      'sp.nameidformat': 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      'security.want_xml_validation': true,
    });
  });

  it('PUT updates only the supplied keys, accepts "true"/"false" strings and returns the stored map', async () => {
    await api.call('PUT', '/saml/put.example', {
      json: { 'sp.entityid': 'urn:sp', 'organization.lang': 'it' },
    });
    const response = await api.call('PUT', '/saml/put.example', {
      json: {
        'security.authnrequest_signed': 'true',
        'security.sign_metadata': false,
        'organization.lang': null,
      },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      'sp.entityid': 'urn:sp',
      'security.authnrequest_signed': true,
      'security.sign_metadata': false,
    });
  });

  it('PUT stores certificates canonically whatever their layout, and PKCS#1 keys as PKCS#8', async () => {
    const { certificatePem } = await testCertificate('layout.example');
    const oneLine = certificatePem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
    const { generateKeyPairSync } = await import('node:crypto');
    const pkcs1 = String(
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }),
    );
    const response = await api.call('PUT', '/saml/pem.example', {
      json: {
        'idp.x509cert': oneLine,
        'sp.x509cert': certificatePem.replaceAll('\n', '\r\n'),
        'sp.privatekey': pkcs1,
      },
    });
    expect(response.status).toBe(200);
    expect(response.body['idp.x509cert']).toBe(certificatePem);
    expect(response.body['sp.x509cert']).toBe(certificatePem);
    expect(response.body['sp.privatekey']).toMatch(
      /^-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END PRIVATE KEY-----\n$/,
    );
  });

  it('PUT answers 400 naming an unknown key, a bad boolean or a bad value, and stores nothing', async () => {
    const unknown = await api.call('PUT', '/saml/bad.example', {
      json: { 'sp.entityid': 'urn:sp', 'sp.entity_id': 'x' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      ok: false,
      code: 'invalid_properties',
      error: expect.stringContaining('unknown property "sp.entity_id"'),
    });
    expect(unknown.body.errors).toEqual([
      { code: 'unknown_key', key: 'sp.entity_id', message: expect.any(String) },
    ]);
    const flag = await api.call('PUT', '/saml/bad.example', { json: { 'security.sign_metadata': 'yes' } });
    expect(flag.body.error).toBe('security.sign_metadata: expected true or false but received "yes"');
    const url = await api.call('PUT', '/saml/bad.example', {
      json: { 'idp.single_sign_on_service.url': 'javascript:alert(1)' },
    });
    expect(url.body.errors[0].code).toBe('idp_sso_url_invalid');
    const notObject = await api.call('PUT', '/saml/bad.example', { json: ['sp.entityid'] });
    expect(notObject.status).toBe(400);
    const notJson = await api.call('PUT', '/saml/bad.example', {
      body: '{"sp.entityid": ',
      contentType: 'application/json',
    });
    expect(notJson.body).toEqual({ ok: false, error: 'the request body is not valid JSON' });
    const xml = await api.call('PUT', '/saml/bad.example', {
      body: '<SAMLProperties/>',
      contentType: 'application/xml',
    });
    expect(xml.body.error).toContain('expected Content-Type application/json');
    expect((await api.call('GET', '/saml/bad.example?raw=true')).body).toEqual({});
  });

  it('security.digest_algorithm defaults to sha256, accepts a known digest URI and answers 400 for another', async () => {
    const defaults = await api.call('GET', '/saml/digest.example?keys=security.digest_algorithm');
    expect(defaults.body).toEqual({ 'security.digest_algorithm': 'http://www.w3.org/2001/04/xmlenc#sha256' });
    const sha512 = await api.call('PUT', '/saml/digest.example', {
      json: { 'security.digest_algorithm': 'http://www.w3.org/2001/04/xmlenc#sha512' },
    });
    expect(sha512.body).toEqual({ 'security.digest_algorithm': 'http://www.w3.org/2001/04/xmlenc#sha512' });
    const md5 = await api.call('PUT', '/saml/digest.example', {
      json: { 'security.digest_algorithm': 'http://www.w3.org/2001/04/xmldsig-more#md5' },
    });
    expect(md5.status).toBe(400);
    expect(md5.body.errors).toEqual([
      { code: 'digest_algorithm_invalid', key: 'security.digest_algorithm', message: expect.any(String) },
    ]);
    expect(md5.body.error).toMatch(/^security\.digest_algorithm: expected an XML digest algorithm URI/);
    expect((await api.call('GET', '/saml/digest.example?raw=true')).body).toEqual({
      'security.digest_algorithm': 'http://www.w3.org/2001/04/xmlenc#sha512',
    });
  });

  it('PUT stores a certificate given as base64 of a PEM text canonically, and validation reads it the same', async () => {
    const { certificatePem, privateKeyPem } = await testCertificate('encoded.example');
    const encoded = Buffer.from(certificatePem).toString('base64');
    const response = await api.call('PUT', '/saml/encoded.example', {
      json: { 'sp.x509cert': encoded, 'sp.privatekey': privateKeyPem },
    });
    expect(response.status).toBe(200);
    expect(response.body['sp.x509cert']).toBe(certificatePem);
    const validated = await api.call('POST', '/saml-validate?details=true', {
      json: { 'sp.x509cert': encoded, 'sp.privatekey': privateKeyPem },
    });
    expect(validated.body.errors.map((error: { code: string }) => error.code)).not.toContain(
      'sp_cert_invalid',
    );
    expect(validated.body.certificates.sp.subject).toContain('CN=encoded.example');
    const keyInside = await api.call('PUT', '/saml/encoded.example', {
      json: { 'idp.x509cert': Buffer.from(privateKeyPem).toString('base64') },
    });
    expect(keyInside.status).toBe(400);
    expect(keyInside.body.error).toBe(
      'idp.x509cert: expected a certificate but received base64 of a private key',
    );
  });

  it('PUT refuses encrypted and EC private keys and base64 that is no certificate', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const encrypted = String(
      rsa.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'secret' }),
    );
    const ec = String(
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
    );
    const response = await api.call('PUT', '/saml/keys.example', {
      json: { 'sp.privatekey': encrypted, 'idp.x509cert': Buffer.alloc(300, 7).toString('base64') },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { code: string }) => error.code)).toEqual([
      'sp_privatekey_encrypted',
      'idp_cert_invalid',
    ]);
    const ecResponse = await api.call('PUT', '/saml/keys.example', { json: { 'sp.privatekey': ec } });
    expect(ecResponse.body).toMatchObject({
      code: 'invalid_properties',
      errors: [{ code: 'sp_privatekey_not_rsa' }],
    });
    expect((await api.call('GET', '/saml/keys.example?raw=true')).body).toEqual({});
  });

  it('refuses __proto__ and constructor keys without polluting any prototype', async () => {
    const response = await api.call('PUT', '/saml/proto.example', {
      body: '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}',
      contentType: 'application/json',
    });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { key: string }) => error.key)).toEqual([
      '__proto__',
      'constructor',
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await api.call('GET', '/saml/proto.example?raw=true')).body).toEqual({});
  });

  it('DELETE removes the listed keys, or every key without keys', async () => {
    await api.call('PUT', '/saml/delete.example', {
      json: { 'sp.entityid': 'urn:sp', 'idp.entityid': 'urn:idp', 'organization.lang': 'en' },
    });
    const some = await api.call('DELETE', '/saml/delete.example?keys=sp.entityid,organization.lang');
    expect(some.body).toEqual({ 'idp.entityid': 'urn:idp' });
    const unknown = await api.call('DELETE', '/saml/delete.example?keys=idp.entityid,nope');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toContain('"nope"');
    expect((await api.call('DELETE', '/saml/delete.example')).body).toEqual({});
  });

  it('answers 400 for unknown or repeated query parameters', async () => {
    expect((await api.call('GET', '/saml/example.com?rew=true')).body.error).toContain(
      'unknown query parameter "rew"',
    );
    expect((await api.call('GET', '/saml/example.com?raw=true&raw=false')).body.error).toContain('several');
    expect((await api.call('GET', '/saml/example.com?raw=maybe')).body.error).toContain(
      'raw: expected true or false',
    );
  });
});

describe('bad domains', () => {
  it.each([
    '..%2F..',
    'a_b.example',
    '-x.example',
    '127.0.0.1',
    'ex%20ample.com',
    `${'a'.repeat(64)}.example`,
    `${'a.'.repeat(127)}example`,
  ])('GET /saml/%s answers 400 with { ok: false, error }', async (domain) => {
    const response = await api.call('GET', `/saml/${domain}`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      ok: false,
      code: 'invalid_domain',
      error: expect.stringContaining('expected a domain name'),
    });
  });

  it('lower-cases domains, so Example.COM and example.com are one configuration', async () => {
    await api.call('PUT', '/saml/Case.Example', { json: { 'sp.entityid': 'urn:case' } });
    expect((await api.call('GET', '/saml/case.example?raw=true')).body).toEqual({
      'sp.entityid': 'urn:case',
    });
  });
});

describe('OpenAPI', () => {
  it('documents every SAML route under the base path', async () => {
    const document = (await fetch(`${api.server.url}/openapi.json`).then((response) => response.json())) as {
      paths: Record<string, object>;
    };
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/admin/auth/'))).toEqual([
      '/admin/auth/saml/{domain}',
      '/admin/auth/saml-validate/{domain}',
      '/admin/auth/saml-validate',
      '/admin/auth/saml-generate/{domain}',
      '/admin/auth/saml-metadata/{domain}',
    ]);
    expect(Object.keys(document.paths['/admin/auth/saml/{domain}'] ?? {})).toEqual([
      'get',
      'put',
      'post',
      'delete',
    ]);
    const properties = (document as unknown as Json).components.schemas.SAMLProperties.properties;
    expect(properties['security.digest_algorithm']).toEqual({
      type: 'string',
      enum: [
        'http://www.w3.org/2000/09/xmldsig#sha1',
        'http://www.w3.org/2001/04/xmlenc#sha256',
        'http://www.w3.org/2001/04/xmldsig-more#sha384',
        'http://www.w3.org/2001/04/xmlenc#sha512',
      ],
      default: 'http://www.w3.org/2001/04/xmlenc#sha256',
    });
  });
});

describe('SAML_BASE_PATH', () => {
  it('mounts the routes under the configured path only', async () => {
    const custom = await startSamlServer({
      env: { SAML_BASE_PATH: '/service/extension/zextras_admin/auth' },
    });
    try {
      expect((await custom.call('GET', '/saml/example.com?raw=true')).status).toBe(200);
      expect(custom.base).toMatch(/\/service\/extension\/zextras_admin\/auth$/);
      const old = await fetch(`${custom.server.url}/admin/auth/saml/example.com`);
      expect(old.status).toBe(404);
    } finally {
      await custom.stop();
    }
  });
});
