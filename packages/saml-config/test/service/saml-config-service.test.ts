import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createMemoryDocumentFetcher,
  createMemorySamlPropertyStore,
  createSamlConfigService,
  isSamlConfigError,
  parsePropertyUpdate,
  readCertificate,
  readPrivateKey,
  type SamlConfigErrorCode,
  type SamlConfigServiceOptions,
} from '../../src/index.js';
import { createSqliteSamlPropertyStore } from '../../src/sqlite.js';
import { pemBody, pkcs1KeyPem, testCertificate } from '../support/certificates.js';
import { idpMetadata } from '../support/metadata.js';

function setup(overrides: Partial<SamlConfigServiceOptions> = {}) {
  const logs: unknown[] = [];
  const store = createMemorySamlPropertyStore();
  const service = createSamlConfigService({
    store,
    publicUrl: 'https://mail.example.com/',
    logger: { info: (fields, message) => logs.push({ fields, message }) },
    ...overrides,
  });
  return { service, store, logs };
}

async function failureOf(promise: Promise<unknown>): Promise<{
  code: SamlConfigErrorCode | undefined;
  message: string;
  details: Record<string, unknown> | undefined;
}> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (error === undefined) throw new Error('expected a failure');
  return isSamlConfigError(error)
    ? { code: error.code, message: error.message, details: error.details }
    : { code: undefined, message: String(error), details: undefined };
}

async function idpProperties() {
  const idp = await testCertificate({ commonName: 'idp.example.org' });
  return {
    'idp.entityid': 'https://idp.example.org/metadata',
    'idp.single_sign_on_service.url': 'https://idp.example.org/sso',
    'idp.x509cert': idp.certificatePem,
  };
}

describe('SAML config service: reading and writing', () => {
  it('applies defaults on read, derives SP URLs from the public URL, and returns only stored values with raw', async () => {
    const { service } = setup();
    await service.updateProperties('Example.COM', { 'organization.lang': 'it' });
    const effective = await service.getProperties('example.com');
    expect(effective).toMatchObject({
      'sp.entityid': 'https://mail.example.com/zx/auth/samlMetadata?domain=example.com',
      'sp.assertion_consumer_service.url': 'https://mail.example.com/zx/auth/saml',
      'sp.assertion_consumer_service.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
      'sp.nameidformat': 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      'idp.single_sign_on_service.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
      'security.authnrequest_signed': false,
      'security.want_xml_validation': true,
      'security.requested_authncontext': 'urn:oasis:names:tc:SAML:2.0:ac:classes:Password',
      'security.requested_authncontextcomparison': 'exact',
      'security.signature_algorithm': 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      'security.digest_algorithm': 'http://www.w3.org/2001/04/xmlenc#sha256',
      'organization.lang': 'it',
    });
    expect(Object.keys(effective)[0]).toBe('sp.entityid');
    expect(await service.getProperties('example.com', { raw: true })).toEqual({ 'organization.lang': 'it' });
    expect(await service.getProperties('example.com', { keys: 'organization.lang,sp.nameidformat' })).toEqual(
      {
        'sp.nameidformat': 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
        'organization.lang': 'it',
      },
    );
    expect(await failureOf(service.getProperties('example.com', { keys: 'sp.nope' }))).toMatchObject({
      code: 'invalid_parameters',
      message: expect.stringContaining('"sp.nope"'),
    });
  });

  it('updates only the supplied keys, removes blank ones, and refuses unknown keys without storing anything', async () => {
    const { service } = setup();
    await service.updateProperties('example.com', { 'sp.entityid': 'urn:sp', 'organization.lang': 'en' });
    expect(
      await service.updateProperties(
        'example.com',
        // An HTTP body: strings for booleans, read by the HTTP layer's parser.
        parsePropertyUpdate({ 'organization.lang': '', 'security.sign_metadata': 'true' }),
      ),
    ).toEqual({
      'sp.entityid': 'urn:sp',
      'security.sign_metadata': true,
    });
    const failure = await failureOf(
      service.updateProperties(
        'example.com',
        JSON.parse('{"__proto__": {"x": 1}, "sp.entityid": "urn:other"}'),
      ),
    );
    expect(failure).toMatchObject({
      code: 'invalid_properties',
      message: expect.stringContaining('unknown property "__proto__"'),
    });
    expect(await service.getProperties('example.com', { raw: true })).toEqual({
      'sp.entityid': 'urn:sp',
      'security.sign_metadata': true,
    });
  });

  it('deletes listed keys or everything, and refuses bad domains', async () => {
    const { service } = setup();
    await service.updateProperties('example.com', { 'sp.entityid': 'urn:sp', 'organization.lang': 'en' });
    expect(await service.deleteProperties('example.com', { keys: 'organization.lang' })).toEqual({
      'sp.entityid': 'urn:sp',
    });
    expect(await service.deleteProperties('example.com')).toEqual({});
    expect((await failureOf(service.deleteProperties('../etc'))).code).toBe('invalid_domain');
  });

  it('keeps both of two concurrent updates of different keys in SQLite', async () => {
    const store = createSqliteSamlPropertyStore({
      filename: join(mkdtempSync(join(tmpdir(), 'saml-svc-')), 'saml.sqlite'),
    });
    const { service } = setup({ store });
    await Promise.all([
      service.updateProperties('example.com', { 'sp.entityid': 'urn:sp' }),
      service.updateProperties('example.com', { 'idp.entityid': 'urn:idp' }),
    ]);
    expect(await service.getProperties('example.com', { raw: true })).toEqual({
      'sp.entityid': 'urn:sp',
      'idp.entityid': 'urn:idp',
    });
    await store.close();
  });
});

describe('SAML config service: import', () => {
  it('replaces the whole configuration with a JSON import', async () => {
    const { service } = setup();
    await service.updateProperties('example.com', { 'organization.lang': 'it' });
    const result = await service.importProperties('example.com', { body: { 'sp.entityid': 'urn:sp' } });
    expect(result).toMatchObject({ format: 'json', properties: { 'sp.entityid': 'urn:sp' } });
  });

  it('replaces only the IdP side with IdP metadata (also fetched from a URL), keeping SP keys', async () => {
    const idp = await testCertificate({ commonName: 'idp.example.org' });
    const url = 'https://idp.example.org/metadata';
    const { service } = setup({
      fetcher: createMemoryDocumentFetcher({ [url]: idpMetadata({ certificates: [idp.certificatePem] }) }),
    });
    await service.updateProperties('example.com', {
      'sp.entityid': 'urn:sp',
      'idp.single_logout_service.url': 'https://old.example/slo',
    });
    const result = await service.importProperties('example.com', { url });
    expect(result.format).toBe('idp-metadata');
    expect(result.properties).toMatchObject({
      'sp.entityid': 'urn:sp',
      'idp.entityid': 'https://idp.example.org/saml/metadata',
    });
    expect(result.properties['idp.single_logout_service.url']).toBeUndefined();
    expect(result.properties['idp.x509cert']).toBe(idp.certificatePem);
  });

  it('changes nothing when the document has a bad value, or validate=true finds errors', async () => {
    const { service } = setup();
    await service.updateProperties('example.com', { 'organization.lang': 'it' });
    const bad = await failureOf(
      service.importProperties('example.com', { body: { 'sp.entityid': 'urn:sp', 'idp.x509cert': 'junk' } }),
    );
    expect(bad).toMatchObject({
      code: 'invalid_properties',
      message: expect.stringContaining('idp.x509cert'),
    });
    const invalid = await failureOf(
      service.importProperties('example.com', { body: { 'sp.entityid': 'urn:sp' }, validate: true }),
    );
    expect(invalid.code).toBe('validation_failed');
    expect(((invalid.details?.errors ?? []) as { code: string }[]).map((error) => error.code)).toEqual([
      'idp_entityId_not_found',
      'idp_sso_url_invalid',
      'idp_cert_or_fingerprint_not_found_and_required',
    ]);
    expect(await service.getProperties('example.com', { raw: true })).toEqual({ 'organization.lang': 'it' });
  });

  it('stores a validated import, with defaults supplying the SP URLs', async () => {
    const { service } = setup();
    const result = await service.importProperties('example.com', {
      body: await idpProperties(),
      validate: true,
    });
    expect(Object.keys(result.properties)).toEqual([
      'idp.entityid',
      'idp.single_sign_on_service.url',
      'idp.x509cert',
    ]);
    expect(result.warnings.map((warning) => warning.code)).toEqual(['no_signature_required']);
  });

  it('asks for exactly one source', async () => {
    const { service } = setup();
    expect((await failureOf(service.importProperties('example.com', {}))).code).toBe('invalid_document');
    expect(
      (await failureOf(service.importProperties('example.com', { body: {}, url: 'https://x.example/' })))
        .code,
    ).toBe('invalid_parameters');
  });
});

describe('SAML config service: validate, generate, metadata', () => {
  it('validates a document and a domain, reporting the IdP certificate expiry', async () => {
    const { service } = setup();
    const document = await service.validateDocument({ body: JSON.stringify(await idpProperties()) });
    expect(document.errors.map((error) => error.code)).toEqual(['sp_entityId_not_found', 'sp_acs_not_found']);
    expect(document.summary).toBe('sp.entityid is required (and 1 more)');
    await service.importProperties('example.com', { body: await idpProperties() });
    const domain = await service.validateDomain('example.com');
    expect(domain.ok).toBe(true);
    expect(domain.certificates.idp?.notAfter).toMatch(/^\d{4}-\d\d-\d\dT/);
    const metadataOnly = await service.validateDocument({
      body: idpMetadata({ certificates: [(await testCertificate()).certificatePem] }),
    });
    expect(metadataOnly.ok).toBe(true);
  });

  it('generates and stores a matching certificate and PKCS#8 key, and logs no key material', async () => {
    const { service, logs } = setup();
    await service.updateProperties('example.com', { 'sp.privatekey': pkcs1KeyPem() });
    const result = await service.generateCertificate('example.com', { days: 30, organization: 'Acme' });
    const certificate = readCertificate(String(result.properties['sp.x509cert']));
    const key = readPrivateKey(String(result.properties['sp.privatekey']));
    expect(certificate.ok && key.ok && certificate.certificate.checkPrivateKey(key.key)).toBe(true);
    expect(certificate.ok && certificate.certificate.subject).toBe('O=Acme\nCN=example.com');
    const logText = JSON.stringify(logs);
    expect(logText).toContain('saml certificate generated');
    expect(logText).not.toContain('PRIVATE KEY');
    expect(logText).not.toContain(pemBody(String(result.properties['sp.privatekey'])).slice(100, 140));
  });

  it('stores nothing when a generate parameter is bad', async () => {
    const { service } = setup();
    const failure = await failureOf(service.generateCertificate('example.com', { country: 'ITA' }));
    expect(failure.code).toBe('invalid_parameters');
    expect(await service.getProperties('example.com', { raw: true })).toEqual({});
  });

  it('round-trips: generate, export, import into another domain, validate', async () => {
    const { service } = setup();
    await service.importProperties('source.example', { body: await idpProperties() });
    await service.generateCertificate('source.example', {});
    await service.updateProperties('source.example', { 'security.authnrequest_signed': true });
    const exported = await service.getProperties('source.example');
    await service.importProperties('target.example', { body: JSON.stringify(exported), validate: true });
    const report = await service.validateDomain('target.example');
    expect(report.errors).toEqual([]);
    expect(await service.getProperties('target.example')).toEqual(exported);
  });

  it('builds SP metadata with the certificate and endpoints, signs it when asked and the key allows, and refuses it without SP URLs', async () => {
    const { service } = setup();
    await service.generateCertificate('example.com', {});
    const stored = await service.getProperties('example.com', { raw: true });
    const { xml, warnings } = await service.spMetadata('example.com');
    expect(warnings).toEqual([]);
    expect(xml).toContain('entityID="https://mail.example.com/zx/auth/samlMetadata?domain=example.com"');
    expect(xml).toContain(
      `<ds:X509Certificate>${pemBody(String(stored['sp.x509cert']))}</ds:X509Certificate>`,
    );
    expect(xml).toContain(
      '<md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://mail.example.com/zx/auth/saml" index="1"/>',
    );
    expect(xml).not.toContain('PRIVATE');
    expect(xml).not.toContain('<ds:Signature');
    await service.updateProperties('example.com', { 'security.sign_metadata': true });
    const signed = await service.spMetadata('example.com');
    expect(signed.warnings).toEqual([]);
    expect(signed.xml).toContain('<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#">');
    await service.updateProperties('example.com', { 'sp.privatekey': null });
    const unsigned = await service.spMetadata('example.com');
    expect(unsigned.xml).not.toContain('<ds:Signature');
    expect(unsigned.warnings).toEqual([
      {
        code: 'metadata_not_signed',
        key: 'sp.privatekey',
        message: 'sp.privatekey is missing; the metadata is served unsigned',
      },
    ]);
    const withoutPublicUrl = setup({ publicUrl: undefined });
    expect((await failureOf(withoutPublicUrl.service.spMetadata('example.com'))).code).toBe(
      'incomplete_configuration',
    );
  });
});
