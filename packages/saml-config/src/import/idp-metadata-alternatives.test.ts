import { describe, expect, it } from 'vitest';
import { testCertificate } from '../../test/support/certificates.js';
import { idpMetadata } from '../../test/support/metadata.js';
import { isSamlConfigError } from '../errors.js';
import { readDocument } from './read-document.js';

const now = new Date();
const options = { maxBytes: 1_048_576, now };
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

function failureMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(isSamlConfigError(error) && error.code).toBe('invalid_metadata');
    return (error as Error).message;
  }
  throw new Error('expected a failure');
}

describe('readDocument: every IdP certificate and endpoint survives a metadata import', () => {
  it('keeps two valid signing certificates and the Redirect and POST endpoints, the spec keys holding today’s choice', async () => {
    const current = await testCertificate({ commonName: 'idp-current.example', days: 400 });
    const next = await testCertificate({ commonName: 'idp-next.example', days: 200 });
    const xml = idpMetadata({
      certificates: [next.certificatePem, current.certificatePem],
      ssoBindings: ['HTTP-POST', 'HTTP-Redirect'],
      sloLocation: 'https://idp.example.org/slo',
      sloResponseLocation: 'https://idp.example.org/slo-response',
      sloBindings: ['HTTP-Redirect', 'HTTP-POST'],
    });
    const read = readDocument(xml, options);
    expect(read.parsed.issues).toEqual([]);
    expect(read.parsed.properties).toMatchObject({
      'idp.x509cert': current.certificatePem,
      'idp.x509certMulti.signing.0': next.certificatePem,
      'idp.single_sign_on_service.url': 'https://idp.example.org/sso/http-redirect?a=1&b=2',
      'idp.single_sign_on_service.binding': REDIRECT,
      'idp.single_sign_on_service.0.url': 'https://idp.example.org/sso/http-post?a=1&b=2',
      'idp.single_sign_on_service.0.binding': POST,
      'idp.single_logout_service.url': 'https://idp.example.org/slo',
      'idp.single_logout_service.binding': REDIRECT,
      'idp.single_logout_service.response.url': 'https://idp.example.org/slo-response',
      'idp.single_logout_service.0.url': 'https://idp.example.org/slo/http-post',
      'idp.single_logout_service.0.binding': POST,
    });
    expect(read.parsed.properties['idp.x509certMulti.signing.1']).toBeUndefined();
    expect(read.parsed.properties['idp.single_sign_on_service.1.url']).toBeUndefined();
    expect(read.parsed.properties['idp.single_logout_service.0.response.url']).toBeUndefined();
    expect(read.warnings[0]?.message).toContain('idp.x509certMulti.signing.0');
    expect(read.replaces).toContain('idp.x509certMulti.signing.9');
    expect(read.replaces).toContain('idp.single_sign_on_service.9.binding');
  });

  it('stores no alternatives when the metadata offers one certificate and one endpoint', async () => {
    const { certificatePem } = await testCertificate();
    const read = readDocument(
      idpMetadata({ certificates: [certificatePem, certificatePem], ssoBindings: ['HTTP-POST'] }),
      options,
    );
    const indexed = Object.keys(read.parsed.properties).filter((key) => /\.\d+(\.|$)/.test(key));
    expect(indexed).toEqual([]);
    expect(read.parsed.properties['idp.single_sign_on_service.binding']).toBe(POST);
  });

  it('refuses metadata listing more than ten alternative SSO endpoints, saying the limit', () => {
    const bindings = Array.from({ length: 12 }, (_, index) => `Custom${index}`);
    const message = failureMessage(() => readDocument(idpMetadata({ ssoBindings: bindings }), options));
    expect(message).toBe(
      'expected at most 11 SingleSignOnService endpoints (one chosen, 10 alternatives) but the metadata lists 12',
    );
  });

  it('accepts exactly ten alternatives and reports an unknown binding among them as binding_invalid', () => {
    const bindings = ['HTTP-Redirect', ...Array.from({ length: 10 }, (_, index) => `Custom${index}`)];
    const read = readDocument(idpMetadata({ ssoBindings: bindings }), options);
    expect(read.parsed.issues.map((issue) => [issue.code, issue.key])).toEqual(
      Array.from({ length: 10 }, (_, index) => [
        'binding_invalid',
        `idp.single_sign_on_service.${index}.binding`,
      ]),
    );
  });
});
