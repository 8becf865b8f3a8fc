import { describe, expect, it } from 'vitest';
import { pemBody, testCertificate } from '../../test/support/certificates.js';
import { entityDescriptor, idpMetadata } from '../../test/support/metadata.js';
import { isSamlConfigError, type SamlConfigErrorCode } from '../errors.js';
import { readDocument } from './read-document.js';

const now = new Date();
const options = { maxBytes: 1_048_576, now };

function failure(run: () => unknown): { code: SamlConfigErrorCode | undefined; message: string } {
  try {
    run();
  } catch (error) {
    return { code: isSamlConfigError(error) ? error.code : undefined, message: (error as Error).message };
  }
  throw new Error('expected a failure');
}

describe('readDocument: formats', () => {
  it('reads a parsed JSON object, JSON text and JSON bytes alike', () => {
    const value = { 'sp.entityid': 'urn:sp', 'security.sign_metadata': 'true' };
    const fromObject = readDocument(value, options);
    const fromText = readDocument(`\uFEFF ${JSON.stringify(value)}`, options);
    const fromBytes = readDocument(new TextEncoder().encode(JSON.stringify(value)), options);
    for (const read of [fromObject, fromText, fromBytes]) {
      expect(read.format).toBe('json');
      expect(read.parsed.properties).toEqual({ 'sp.entityid': 'urn:sp', 'security.sign_metadata': true });
    }
  });

  it('reads a SAMLProperties XML document with dotted element names and decoded entities', () => {
    const xml = `<?xml version="1.0"?><SAMLProperties xmlns="urn:x"><sp.entityid>https://sp.example/m?d=a&amp;x=1</sp.entityid><security.authnrequest_signed>false</security.authnrequest_signed><sp.single_logout_service.url/></SAMLProperties>`;
    const read = readDocument(xml, options);
    expect(read.format).toBe('saml-properties-xml');
    expect(read.parsed.properties).toEqual({
      'sp.entityid': 'https://sp.example/m?d=a&x=1',
      'security.authnrequest_signed': false,
    });
    expect(read.parsed.blankKeys).toEqual(['sp.single_logout_service.url']);
  });

  it('reports unknown, repeated, nested and __proto__ elements of SAMLProperties as issues', () => {
    const xml =
      '<SAMLProperties><__proto__>x</__proto__><bogus>1</bogus><sp.entityid>urn:a</sp.entityid><sp.entityid>urn:b</sp.entityid><idp.entityid><x/></idp.entityid></SAMLProperties>';
    const issues = readDocument(xml, options).parsed.issues.map((issue) => `${issue.code}:${issue.key}`);
    expect(issues).toEqual([
      'duplicate_key:sp.entityid',
      'value_not_text:idp.entityid',
      'unknown_key:__proto__',
      'unknown_key:bogus',
    ]);
  });

  it('refuses text that is neither JSON nor XML, bad JSON, broken XML and unknown roots', () => {
    expect(failure(() => readDocument('entityid=x', options))).toMatchObject({ code: 'invalid_document' });
    expect(failure(() => readDocument('', options)).message).toContain('empty document');
    expect(failure(() => readDocument('{"a":', options))).toMatchObject({ code: 'invalid_document' });
    expect(failure(() => readDocument('<SAMLProperties><a></SAMLProperties>', options)).message).toContain(
      'line 1',
    );
    expect(failure(() => readDocument('<html><body/></html>', options)).message).toContain(
      'root element <html>',
    );
  });
});

describe('readDocument: XML attacks (reference §7)', () => {
  it('refuses an external entity (XXE) before parsing, so no file content can appear anywhere', () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE md [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="&xxe;"/>`;
    const result = failure(() => readDocument(xxe, options));
    expect(result.code).toBe('invalid_document');
    expect(result.message).toContain('DOCTYPE');
    expect(result.message).not.toContain('root:');
  });

  it('refuses nested internal entities (billion laughs) without expanding them', () => {
    const levels = Array.from({ length: 10 }, (_, index) =>
      index === 0 ? '<!ENTITY lol0 "lol">' : `<!ENTITY lol${index} "${`&lol${index - 1};`.repeat(10)}">`,
    ).join('');
    const bomb = `<?xml version="1.0"?><!DOCTYPE SAMLProperties [${levels}]><SAMLProperties><sp.entityid>&lol9;</sp.entityid></SAMLProperties>`;
    expect(failure(() => readDocument(bomb, options))).toMatchObject({ code: 'invalid_document' });
  });

  it('leaves an undeclared entity reference as text instead of resolving it', () => {
    const read = readDocument(
      '<SAMLProperties><organization.name>A &secret; B</organization.name></SAMLProperties>',
      options,
    );
    expect(read.parsed.properties['organization.name']).toBe('A &secret; B');
  });

  it('refuses a document over the size limit before parsing it', () => {
    const big = `<SAMLProperties><organization.name>${'x'.repeat(2048)}</organization.name></SAMLProperties>`;
    const result = failure(() => readDocument(big, { maxBytes: 1024, now }));
    expect(result.code).toBe('document_too_large');
    expect(result.message).toContain('at most 1024 bytes');
  });
});

describe('readDocument: IdP metadata (reference §5)', () => {
  it('maps entityID, the HTTP-Redirect SSO endpoint (HTTP-POST as alternative 0), SLO, the signing certificate and the emailAddress format', async () => {
    const { certificatePem } = await testCertificate();
    const xml = idpMetadata({
      certificates: [certificatePem],
      sloLocation: 'https://idp.example.org/slo',
      sloResponseLocation: 'https://idp.example.org/slo-response',
      wantAuthnRequestsSigned: true,
    });
    const read = readDocument(xml, options);
    expect(read.format).toBe('idp-metadata');
    expect(read.parsed.issues).toEqual([]);
    expect(read.parsed.properties).toEqual({
      'idp.entityid': 'https://idp.example.org/saml/metadata',
      'idp.single_sign_on_service.url': 'https://idp.example.org/sso/http-redirect?a=1&b=2',
      'idp.single_sign_on_service.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
      'idp.single_sign_on_service.0.url': 'https://idp.example.org/sso/http-post?a=1&b=2',
      'idp.single_sign_on_service.0.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
      'idp.single_logout_service.url': 'https://idp.example.org/slo',
      'idp.single_logout_service.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
      'idp.single_logout_service.response.url': 'https://idp.example.org/slo-response',
      'idp.x509cert': certificatePem,
      'sp.nameidformat': 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      'security.authnrequest_signed': true,
    });
    expect(read.replaces).toContain('idp.single_logout_service.url');
    expect(read.replaces).not.toContain('sp.entityid');
  });

  it('falls back to HTTP-POST, warns when emailAddress is not offered, and takes a KeyDescriptor without use', async () => {
    const { certificatePem } = await testCertificate();
    const xml = idpMetadata({
      certificates: [certificatePem],
      signingUse: 'none',
      ssoBindings: ['HTTP-POST'],
      nameIdFormats: ['urn:oasis:names:tc:SAML:2.0:nameid-format:persistent'],
    });
    const read = readDocument(xml, options);
    expect(read.parsed.properties['idp.single_sign_on_service.binding']).toBe(
      'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
    );
    expect(read.parsed.properties['idp.x509cert']).toBe(certificatePem);
    expect(read.parsed.properties['sp.nameidformat']).toBeUndefined();
    expect(read.warnings.map((warning) => warning.code)).toEqual(['nameidformat_not_offered']);
  });

  it('keeps the valid certificate that lasts longest when several are listed, the others as alternatives in document order', async () => {
    const expired = await testCertificate({ issuedDaysAgo: 400, days: 30 });
    const shorter = await testCertificate({ days: 100 });
    const longer = await testCertificate({ days: 700 });
    const read = readDocument(
      idpMetadata({ certificates: [expired.certificatePem, longer.certificatePem, shorter.certificatePem] }),
      options,
    );
    expect(read.parsed.properties['idp.x509cert']).toBe(longer.certificatePem);
    expect(read.parsed.properties['idp.x509certMulti.signing.0']).toBe(expired.certificatePem);
    expect(read.parsed.properties['idp.x509certMulti.signing.1']).toBe(shorter.certificatePem);
    expect(read.parsed.properties['idp.x509certMulti.signing.2']).toBeUndefined();
    expect(read.warnings.map((warning) => warning.code)).toEqual(['idp_cert_alternatives']);
  });

  it('reads an X509Certificate holding base64 of a PEM text as that certificate, and does not count it twice', async () => {
    const { certificatePem } = await testCertificate();
    const encodedPem = Buffer.from(certificatePem).toString('base64');
    const read = readDocument(idpMetadata({ certificates: [encodedPem] }), options);
    expect(read.parsed.issues).toEqual([]);
    expect(read.parsed.properties['idp.x509cert']).toBe(certificatePem);
    const both = readDocument(idpMetadata({ certificates: [certificatePem, encodedPem] }), options);
    expect(both.parsed.properties['idp.x509cert']).toBe(certificatePem);
    expect(both.warnings).toEqual([]);
  });

  it('refuses expired metadata, metadata without IdP, several IdPs without a choice, and missing SSO', async () => {
    const past = new Date(Date.now() - 86_400_000).toISOString();
    expect(failure(() => readDocument(idpMetadata({ validUntil: past }), options))).toMatchObject({
      code: 'invalid_metadata',
      message: expect.stringContaining('expired'),
    });
    const sp =
      '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="urn:sp"><md:SPSSODescriptor/></md:EntityDescriptor>';
    expect(failure(() => readDocument(sp, options)).message).toContain(
      'no EntityDescriptor has an IDPSSODescriptor',
    );
    const two = `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">${entityDescriptor({ entityId: 'urn:idp:one' })}${entityDescriptor({ entityId: 'urn:idp:two' })}</md:EntitiesDescriptor>`;
    expect(failure(() => readDocument(two, options))).toMatchObject({
      code: 'invalid_metadata',
      message: expect.stringContaining('urn:idp:one, urn:idp:two'),
    });
    expect(readDocument(two, { ...options, entityId: 'urn:idp:two' }).parsed.properties['idp.entityid']).toBe(
      'urn:idp:two',
    );
    expect(failure(() => readDocument(idpMetadata({ ssoBindings: [] }), options)).message).toContain(
      'SingleSignOnService',
    );
  });

  it('reports a malformed certificate in metadata as idp_cert_invalid', () => {
    const xml = idpMetadata().replace(
      '<md:NameIDFormat>',
      `<md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="x"><ds:X509Data><ds:X509Certificate>${pemBody('AAAA')}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor><md:NameIDFormat>`,
    );
    expect(readDocument(xml, options).parsed.issues.map((issue) => issue.code)).toEqual(['idp_cert_invalid']);
  });
});
