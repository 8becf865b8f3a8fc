import { generateCertificate } from '@collab-suite/saml-config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type SamlClient, startSamlServer, testCertificate } from './saml-test-support.js';

let api: SamlClient;
beforeAll(async () => {
  api = await startSamlServer();
});
afterAll(() => api.stop());

const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const base64 = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
const keyDescriptor = (pem: string) =>
  `<md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${base64(pem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;

/** Metadata of an IdP rolling its key: the new certificate first, both valid; SSO by POST and Redirect. */
function rolloverMetadata(newPem: string, currentPem: string): string {
  return `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example.org/metadata">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    ${keyDescriptor(newPem)}${keyDescriptor(currentPem)}
    <md:SingleLogoutService Binding="${REDIRECT}" Location="https://idp.example.org/slo"/>
    <md:SingleLogoutService Binding="${POST}" Location="https://idp.example.org/slo-post"/>
    <md:SingleSignOnService Binding="${POST}" Location="https://idp.example.org/sso-post"/>
    <md:SingleSignOnService Binding="${REDIRECT}" Location="https://idp.example.org/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
}

describe('IdP alternatives over HTTP', () => {
  let current: string;
  let next: string;
  beforeAll(async () => {
    current = (await testCertificate('idp-current.example.org')).certificatePem;
    // Valid from now for a shorter time than `current`, so `current` stays the chosen one.
    next = (
      await generateCertificate(
        'idp-next.example.org',
        { days: 90, digest: 'SHA-256', keyBits: 2048 },
        new Date(),
      )
    ).certificatePem;
  });

  it('POST imports IdP metadata keeping both certificates and every SSO/SLO endpoint, and GET reads them', async () => {
    const response = await api.call('POST', '/saml/rollover.example', {
      body: rolloverMetadata(next, current),
      contentType: 'application/samlmetadata+xml',
    });
    expect(response.status).toBe(200);
    const expected = {
      'idp.x509cert': current,
      'idp.x509certMulti.signing.0': next,
      'idp.single_sign_on_service.url': 'https://idp.example.org/sso',
      'idp.single_sign_on_service.binding': REDIRECT,
      'idp.single_sign_on_service.0.url': 'https://idp.example.org/sso-post',
      'idp.single_sign_on_service.0.binding': POST,
      'idp.single_logout_service.url': 'https://idp.example.org/slo',
      'idp.single_logout_service.binding': REDIRECT,
      'idp.single_logout_service.0.url': 'https://idp.example.org/slo-post',
      'idp.single_logout_service.0.binding': POST,
    };
    expect(response.body).toMatchObject(expected);
    expect(response.headers.get('x-saml-warnings')).toContain('idp_cert_alternatives');
    const read = await api.call('GET', '/saml/rollover.example');
    expect(read.body).toMatchObject(expected);
    const picked = await api.call(
      'GET',
      '/saml/rollover.example?keys=idp.x509certMulti.signing.0,idp.single_sign_on_service.0.binding',
    );
    expect(picked.body).toEqual({
      'idp.x509certMulti.signing.0': next,
      'idp.single_sign_on_service.0.binding': POST,
    });
  });

  it('a later metadata import with one certificate drops the stale alternatives', async () => {
    await api.call('POST', '/saml/shrink.example', {
      body: rolloverMetadata(next, current),
      contentType: 'application/xml',
    });
    const single = rolloverMetadata(current, current);
    const response = await api.call('POST', '/saml/shrink.example', {
      body: single,
      contentType: 'application/xml',
    });
    expect(response.status).toBe(200);
    expect(response.body['idp.x509certMulti.signing.0']).toBeUndefined();
    expect(response.body['idp.single_sign_on_service.0.url']).toBe('https://idp.example.org/sso-post');
  });

  it('PUT and GET round-trip indexed keys, and PUT answers 400 for a bad binding, a bad certificate or index 10', async () => {
    const put = await api.call('PUT', '/saml/indexed.example', {
      json: {
        'idp.x509certMulti.signing.3': next,
        'idp.single_sign_on_service.1.url': 'https://idp.example.org/sso-artifact',
        'idp.single_sign_on_service.1.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact',
      },
    });
    expect(put.status).toBe(200);
    expect((await api.call('GET', '/saml/indexed.example?raw=true')).body).toEqual({
      'idp.single_sign_on_service.1.url': 'https://idp.example.org/sso-artifact',
      'idp.single_sign_on_service.1.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact',
      'idp.x509certMulti.signing.3': next,
    });
    const bad = await api.call('PUT', '/saml/indexed.example', {
      json: {
        'idp.single_sign_on_service.1.binding': 'HTTP-POST',
        'idp.x509certMulti.signing.0': 'MIIB',
        'idp.x509certMulti.signing.10': next,
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((issue: Json) => [issue.code, issue.key])).toEqual([
      ['binding_invalid', 'idp.single_sign_on_service.1.binding'],
      ['idp_cert_invalid', 'idp.x509certMulti.signing.0'],
      ['too_many_alternatives', 'idp.x509certMulti.signing.10'],
    ]);
    expect(
      (await api.call('GET', '/saml/indexed.example?raw=true')).body['idp.x509certMulti.signing.0'],
    ).toBe(undefined);
  });

  it('validation reports an alternative endpoint without its binding', async () => {
    await api.call('PUT', '/saml/half.example', {
      json: { 'idp.single_logout_service.4.url': 'https://idp.example.org/slo-soap' },
    });
    const report = await api.call('GET', '/saml-validate/half.example?details=true');
    expect(report.status).toBe(400);
    expect(report.body.errors).toContainEqual(
      expect.objectContaining({
        code: 'idp_endpoint_incomplete',
        key: 'idp.single_logout_service.4.binding',
      }),
    );
  });

  it('lists the indexed keys in the OpenAPI SAMLProperties schema', async () => {
    const document = (await fetch(`${api.server.url}/openapi.json`).then((response) =>
      response.json(),
    )) as Json;
    const properties = document.components.schemas.SAMLProperties.properties;
    expect(properties['idp.x509certMulti.signing.9']).toMatchObject({ type: 'string' });
    expect(properties['idp.x509certMulti.signing.9'].description).toContain('idp.x509cert');
    expect(properties['idp.single_logout_service.9.response.url']).toMatchObject({ type: 'string' });
    expect(properties['idp.single_sign_on_service.0.binding'].enum).toContain(POST);
    expect(properties['idp.x509certMulti.signing.10']).toBeUndefined();
  });
});
