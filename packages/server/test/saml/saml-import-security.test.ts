import { type FixtureServer, startFixtureServer } from '@collab-suite/saml-config/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  idpMetadata,
  idpProperties,
  type SamlClient,
  startSamlServer,
  testCertificate,
} from './saml-test-support.js';

let api: SamlClient;
let metadata: string;
beforeAll(async () => {
  api = await startSamlServer();
  metadata = idpMetadata((await testCertificate()).certificatePem);
});
afterAll(() => api.stop());

const stored = async (domain: string) => (await api.call('GET', `/saml/${domain}?raw=true`)).body;

describe('POST /saml/{domain}: import from the body', () => {
  it('imports a flat JSON map, replacing everything stored', async () => {
    await api.call('PUT', '/saml/json.example', { json: { 'organization.lang': 'it' } });
    const response = await api.call('POST', '/saml/json.example', { json: await idpProperties() });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(await idpProperties());
  });

  it('imports a SAMLProperties XML document', async () => {
    const xml =
      '<?xml version="1.0"?><SAMLProperties><sp.entityid>urn:sp</sp.entityid><security.authnrequest_signed>false</security.authnrequest_signed><security.digest_algorithm>http://www.w3.org/2001/04/xmldsig-more#sha384</security.digest_algorithm></SAMLProperties>';
    const response = await api.call('POST', '/saml/xml.example', {
      body: xml,
      contentType: 'application/xml',
    });
    expect(response.body).toEqual({
      'sp.entityid': 'urn:sp',
      'security.authnrequest_signed': false,
      'security.digest_algorithm': 'http://www.w3.org/2001/04/xmldsig-more#sha384',
    });
  });

  it('imports IdP metadata into the idp.* keys and keeps the SP keys', async () => {
    await api.call('PUT', '/saml/meta.example', {
      json: { 'sp.entityid': 'urn:sp', 'idp.single_logout_service.url': 'https://old.example/slo' },
    });
    const response = await api.call('POST', '/saml/meta.example', {
      body: metadata,
      contentType: 'application/samlmetadata+xml',
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      'sp.entityid': 'urn:sp',
      'sp.nameidformat': 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      'idp.entityid': 'https://idp.example.org/metadata',
      'idp.single_sign_on_service.url': 'https://idp.example.org/sso',
      'idp.x509cert': (await testCertificate()).certificatePem,
      'idp.single_sign_on_service.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
    });
  });

  it('changes nothing when the import is refused: bad value, or validate=true with errors', async () => {
    await api.call('PUT', '/saml/atomic.example', { json: { 'organization.lang': 'it' } });
    const bad = await api.call('POST', '/saml/atomic.example', {
      json: { ...(await idpProperties()), 'idp.x509cert': 'MIIBroken' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ code: 'idp_cert_invalid', key: 'idp.x509cert' });
    const invalid = await api.call('POST', '/saml/atomic.example?validate=true', {
      json: { 'sp.entityid': 'urn:sp' },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ ok: false, code: 'validation_failed' });
    expect(invalid.body.errors.map((error: { code: string }) => error.code)).toContain(
      'idp_cert_or_fingerprint_not_found_and_required',
    );
    expect(await stored('atomic.example')).toEqual({ 'organization.lang': 'it' });
    const valid = await api.call('POST', '/saml/atomic.example?validate=true', {
      json: await idpProperties(),
    });
    expect(valid.status).toBe(200);
    expect(valid.headers.get('x-saml-warnings')).toBe('no_signature_required');
  });
});

describe('POST /saml/{domain}: ambiguous or expired metadata (reference §7)', () => {
  it('asks for entityId when metadata lists two IdPs, and refuses expired metadata', async () => {
    const { certificatePem } = await testCertificate();
    const entity = (id: string) => idpMetadata(certificatePem, id).replace('<?xml version="1.0"?>', '');
    const two = `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">${entity('urn:idp:one')}${entity('urn:idp:two')}</md:EntitiesDescriptor>`;
    const ambiguous = await api.call('POST', '/saml/two.example', {
      body: two,
      contentType: 'application/xml',
    });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body).toMatchObject({
      code: 'invalid_metadata',
      error: expect.stringContaining('urn:idp:one, urn:idp:two'),
    });
    const chosen = await api.call('POST', '/saml/two.example?entityId=urn:idp:two', {
      body: two,
      contentType: 'application/xml',
    });
    expect(chosen.body['idp.entityid']).toBe('urn:idp:two');
    const expired = idpMetadata(certificatePem).replace(
      'entityID=',
      'validUntil="2020-01-01T00:00:00Z" entityID=',
    );
    const refused = await api.call('POST', '/saml/expired.example', {
      body: expired,
      contentType: 'application/xml',
    });
    expect(refused.body).toMatchObject({
      code: 'invalid_metadata',
      error: expect.stringContaining('expired'),
    });
    expect(await stored('expired.example')).toEqual({});
  });
});

describe('POST /saml/{domain}: XML attacks and size (reference §7)', () => {
  it('refuses an external entity, and no file content appears in the response or the configuration', async () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE md:EntityDescriptor [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="&xxe;"><md:IDPSSODescriptor><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.org/&xxe;"/></md:IDPSSODescriptor></md:EntityDescriptor>`;
    for (const path of ['/saml/xxe.example', '/saml-validate']) {
      const response = await api.call('POST', path, { body: xxe, contentType: 'application/xml' });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        ok: false,
        code: 'invalid_document',
        error: expect.stringContaining('DOCTYPE'),
      });
      expect(response.text).not.toContain('root:');
    }
    expect(await stored('xxe.example')).toEqual({});
  });

  it('refuses nested entities (billion laughs) quickly and stores nothing', async () => {
    const levels = Array.from({ length: 10 }, (_, index) =>
      index === 0 ? '<!ENTITY a0 "lol">' : `<!ENTITY a${index} "${`&a${index - 1};`.repeat(10)}">`,
    ).join('');
    const bomb = `<?xml version="1.0"?><!DOCTYPE SAMLProperties [${levels}]><SAMLProperties><organization.name>&a9;</organization.name></SAMLProperties>`;
    const response = await api.call('POST', '/saml/bomb.example', { body: bomb, contentType: 'text/xml' });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_document');
    expect(await stored('bomb.example')).toEqual({});
  });

  it('answers 413 { ok: false } for a 5 MiB body, JSON or XML', async () => {
    const big = 'x'.repeat(5 * 1024 * 1024);
    const json = await api.call('POST', '/saml/big.example', {
      body: JSON.stringify({ 'organization.name': big }),
      contentType: 'application/json',
    });
    expect(json.status).toBe(413);
    expect(json.body).toEqual({ ok: false, error: 'the request body is larger than the server accepts' });
    const xml = await api.call('POST', '/saml/big.example', {
      body: `<SAMLProperties><organization.name>${big}</organization.name></SAMLProperties>`,
      contentType: 'application/xml',
    });
    expect(xml.status).toBe(413);
    expect(await stored('big.example')).toEqual({});
  });

  it('refuses a body of another content type instead of ignoring it', async () => {
    const response = await api.call('POST', '/saml/type.example', {
      body: 'sp.entityid=urn:sp',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(response.status).toBe(415);
    expect(response.body.error).toContain('expected Content-Type application/json or application/xml');
  });
});

describe('POST /saml/{domain}?url=: SSRF with the default policy (reference §7)', () => {
  let loopback: FixtureServer;
  beforeAll(async () => {
    loopback = await startFixtureServer({ '/metadata': { body: metadata } });
  });
  afterAll(() => loopback.close());

  it.each([
    'file:///etc/passwd',
    'gopher://127.0.0.1:70/_GET',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/metadata',
    'http://[::1]/metadata',
    'http://[fd00::1]/metadata',
    'http://0.0.0.0/metadata',
  ])('refuses %s with 400 and fetches nothing', async (url) => {
    const response = await api.call(
      'POST',
      `/saml/ssrf.example?allowUnsecure=true&url=${encodeURIComponent(url)}`,
    );
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ ok: false, code: 'url_not_allowed' });
    expect(await stored('ssrf.example')).toEqual({});
  });

  it('refuses the loopback test server by address and by the name localhost', async () => {
    const port = new URL(loopback.origin).port;
    for (const url of [`${loopback.origin}/metadata`, `http://localhost:${port}/metadata`]) {
      const response = await api.call(
        'POST',
        `/saml/ssrf.example?allowUnsecure=true&url=${encodeURIComponent(url)}`,
      );
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('url_not_allowed');
    }
    const validate = await api.call(
      'POST',
      `/saml-validate?allowUnsecure=true&url=${encodeURIComponent(`${loopback.origin}/metadata`)}`,
    );
    expect(validate.body.code).toBe('url_not_allowed');
    expect(loopback.hits).toEqual([]);
  });

  it('refuses a redirect to loopback from an allowed host, and the loopback server sees no request', async () => {
    const allowedHost = await startFixtureServer({}, undefined, '127.0.0.2');
    allowedHost.routes.set('/metadata', { redirect: `${loopback.origin}/metadata` });
    const permissive = await startSamlServer({ env: { SAML_FETCH_ALLOWED_ADDRESSES: '127.0.0.2' } });
    try {
      const url = encodeURIComponent(`${allowedHost.origin}/metadata`);
      const response = await permissive.call('POST', `/saml/redirect.example?allowUnsecure=true&url=${url}`);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        code: 'url_not_allowed',
        error: expect.stringContaining('127.0.0.1 is not a public address'),
      });
      expect(allowedHost.hits).toEqual(['/metadata']);
      expect(loopback.hits).toEqual([]);
      expect((await permissive.call('GET', '/saml/redirect.example?raw=true')).body).toEqual({});
    } finally {
      await permissive.stop();
      await allowedHost.close();
    }
  });
});

describe('POST /saml/{domain}?url=: allowed addresses, size, allowUnsecure', () => {
  let plain: FixtureServer;
  let https: FixtureServer;
  let permissive: SamlClient;
  beforeAll(async () => {
    plain = await startFixtureServer({ '/metadata': { body: metadata }, '/endless': { endless: true } });
    const tls = await testCertificate('127.0.0.1');
    https = await startFixtureServer(
      { '/metadata': { body: metadata }, '/held': { body: metadata, delayMs: 400 } },
      { certificatePem: tls.certificatePem, privateKeyPem: tls.privateKeyPem },
    );
    permissive = await startSamlServer({
      env: { SAML_FETCH_ALLOWED_ADDRESSES: '127.0.0.1/32', SAML_MAX_DOCUMENT_BYTES: '65536' },
    });
  });
  afterAll(async () => {
    await permissive.stop();
    await plain.close();
    await https.close();
  });

  const importUrl = (domain: string, url: string, unsecure: boolean) =>
    permissive.call('POST', `/saml/${domain}?allowUnsecure=${unsecure}&url=${encodeURIComponent(url)}`);

  it('imports from an allowed plain-http server only with allowUnsecure', async () => {
    expect((await importUrl('plain.example', `${plain.origin}/metadata`, false)).body.code).toBe(
      'url_not_allowed',
    );
    const response = await importUrl('plain.example', `${plain.origin}/metadata`, true);
    expect(response.status).toBe(200);
    expect(response.body['idp.entityid']).toBe('https://idp.example.org/metadata');
  });

  it('stops an endless download at SAML_MAX_DOCUMENT_BYTES', async () => {
    const response = await importUrl('endless.example', `${plain.origin}/endless`, true);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      ok: false,
      code: 'download_too_large',
      error: expect.stringContaining('at most 65536 bytes'),
    });
  });

  it('refuses the self-signed HTTPS server without allowUnsecure and accepts it with it', async () => {
    const refused = await importUrl('tls.example', `${https.origin}/metadata`, false);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'fetch_failed',
      error: expect.stringContaining('does not verify'),
    });
    const accepted = await importUrl('tls.example', `${https.origin}/metadata`, true);
    expect(accepted.status).toBe(200);
  });

  it('keeps verifying a concurrent request while an allowUnsecure import is in flight', async () => {
    const [unsecure, verified] = await Promise.all([
      importUrl('held.example', `${https.origin}/held`, true),
      importUrl('verified.example', `${https.origin}/metadata`, false),
    ]);
    expect(unsecure.status).toBe(200);
    expect(verified.status).toBe(400);
    expect(verified.body.code).toBe('fetch_failed');
    expect((await importUrl('after.example', `${https.origin}/metadata`, false)).status).toBe(400);
  });
});

describe('SAML_FETCH_TIMEOUT_MS', () => {
  it('refuses a document that takes longer than the configured time with fetch_timeout (400)', async () => {
    const slow = await startFixtureServer({
      '/slow': { body: metadata, delayMs: 2_000 },
      '/metadata': { body: metadata },
    });
    const hurried = await startSamlServer({
      env: { SAML_FETCH_ALLOWED_ADDRESSES: '127.0.0.1', SAML_FETCH_TIMEOUT_MS: '200' },
    });
    try {
      const importUrl = (path: string) =>
        hurried.call(
          'POST',
          `/saml/slow.example?allowUnsecure=true&url=${encodeURIComponent(`${slow.origin}${path}`)}`,
        );
      const refused = await importUrl('/slow');
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'fetch_timeout', error: expect.stringContaining('200 ms') });
      expect((await hurried.call('GET', '/saml/slow.example?raw=true')).body).toEqual({});
      expect((await importUrl('/metadata')).status).toBe(200);
    } finally {
      await hurried.stop();
      await slow.close();
    }
  });
});
