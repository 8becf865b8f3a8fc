import { describe, expect, it } from 'vitest';
import { testCertificate } from '../../test/support/certificates.js';
import { idpMetadata } from '../../test/support/metadata.js';
import { isSamlConfigError } from '../errors.js';
import { readDocument } from '../import/read-document.js';
import { defaultAcsUrlTemplate, defaultSpEntityIdTemplate, effectiveProperties } from '../model/defaults.js';
import type { SamlProperties } from '../model/property-definitions.js';
import { toNodeSamlConfig } from './to-node-saml-config.js';

const context = {
  domain: 'example.com',
  publicUrl: 'https://mail.example.com',
  spEntityIdTemplate: defaultSpEntityIdTemplate,
  acsUrlTemplate: defaultAcsUrlTemplate,
};

/** A domain as stored after an IdP metadata import of a rolling IdP, then read with defaults. */
async function importedDomain(extra: SamlProperties = {}) {
  const current = await testCertificate({ commonName: 'idp-current.example', days: 400 });
  const next = await testCertificate({ commonName: 'idp-next.example', days: 200 });
  const sp = await testCertificate({ commonName: 'example.com' });
  const read = readDocument(
    idpMetadata({
      certificates: [next.certificatePem, current.certificatePem],
      ssoBindings: ['HTTP-POST', 'HTTP-Redirect'],
      sloLocation: 'https://idp.example.org/slo',
    }),
    { maxBytes: 1_048_576, now: new Date() },
  );
  expect(read.parsed.issues).toEqual([]);
  const stored: SamlProperties = {
    ...read.parsed.properties,
    'sp.x509cert': sp.certificatePem,
    'sp.privatekey': sp.privateKeyPem,
    ...extra,
  };
  return { properties: effectiveProperties(stored, context), current, next, sp };
}

function mappingFailure(run: () => unknown): { message: string; errors: { code: string; key?: string }[] } {
  try {
    run();
  } catch (error) {
    if (!isSamlConfigError(error, 'not_mappable')) throw error;
    return { message: error.message, errors: (error.details?.errors ?? []) as { code: string }[] };
  }
  throw new Error('expected a failure');
}

describe('toNodeSamlConfig', () => {
  it('maps an imported domain with defaults to node-saml settings, every IdP certificate in idpCert', async () => {
    const { properties, current, next } = await importedDomain({ 'security.want_assertions_signed': true });
    expect(toNodeSamlConfig(properties)).toEqual({
      issuer: 'https://mail.example.com/zx/auth/samlMetadata?domain=example.com',
      callbackUrl: 'https://mail.example.com/zx/auth/saml',
      idpCert: [current.certificatePem, next.certificatePem],
      entryPoint: 'https://idp.example.org/sso/http-redirect?a=1&b=2',
      authnRequestBinding: 'HTTP-Redirect',
      idpIssuer: 'https://idp.example.org/saml/metadata',
      logoutUrl: 'https://idp.example.org/slo',
      identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      signatureAlgorithm: 'sha256',
      digestAlgorithm: 'sha256',
      authnContext: ['urn:oasis:names:tc:SAML:2.0:ac:classes:Password'],
      racComparison: 'exact',
      signMetadata: false,
    });
  });

  it('takes the HTTP-POST alternative endpoint when asked for that binding', async () => {
    const { properties } = await importedDomain();
    const config = toNodeSamlConfig(properties, { authnRequestBinding: 'HTTP-POST' });
    expect(config.entryPoint).toBe('https://idp.example.org/sso/http-post?a=1&b=2');
    expect(config.authnRequestBinding).toBe('HTTP-POST');
  });

  it('passes the SP key only when requests are signed, and as decryption key when encryption is wanted', async () => {
    const { properties, sp } = await importedDomain();
    expect(toNodeSamlConfig(properties)).not.toHaveProperty('privateKey');
    const signing = toNodeSamlConfig({ ...properties, 'security.authnrequest_signed': true });
    expect(signing.privateKey).toBe(sp.privateKeyPem);
    expect(signing.publicCert).toBe(sp.certificatePem);
    expect(signing).not.toHaveProperty('decryptionPvk');
    const decrypting = toNodeSamlConfig({ ...properties, 'security.want_assertions_encrypted': true });
    expect(decrypting.decryptionPvk).toBe(sp.privateKeyPem);
    expect(decrypting).not.toHaveProperty('privateKey');
  });

  it('maps sha512 and sha1 URIs, an empty authn context, organization and contacts', async () => {
    const { properties } = await importedDomain({
      'security.signature_algorithm': 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512',
      'security.digest_algorithm': 'http://www.w3.org/2000/09/xmldsig#sha1',
      'security.requested_authncontext': '',
      'security.requested_authncontextcomparison': 'minimum',
      'organization.name': 'Acme',
      'organization.displayname': 'Acme Inc.',
      'organization.url': 'https://acme.example',
      'organization.lang': 'it',
      'contacts.support.email_address': 'help@acme.example',
    });
    const config = toNodeSamlConfig(properties);
    expect(config).toMatchObject({
      signatureAlgorithm: 'sha512',
      digestAlgorithm: 'sha1',
      disableRequestedAuthnContext: true,
      racComparison: 'minimum',
      metadataOrganization: {
        OrganizationName: [{ '@xml:lang': 'it', '#text': 'Acme' }],
        OrganizationDisplayName: [{ '@xml:lang': 'it', '#text': 'Acme Inc.' }],
        OrganizationURL: [{ '@xml:lang': 'it', '#text': 'https://acme.example' }],
      },
      metadataContactPerson: [{ '@contactType': 'support', EmailAddress: ['help@acme.example'] }],
    });
    expect(config).not.toHaveProperty('authnContext');
  });

  it('refuses sha384 and a missing SP entity ID with not_mappable, listing every problem', async () => {
    const { properties } = await importedDomain({
      'security.signature_algorithm': 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384',
      'security.digest_algorithm': 'http://www.w3.org/2001/04/xmldsig-more#sha384',
    });
    const { 'sp.entityid': _removed, ...withoutIssuer } = properties;
    const failure = mappingFailure(() => toNodeSamlConfig(withoutIssuer));
    expect(failure.errors.map((issue) => [issue.code, issue.key])).toEqual([
      ['required_by_node_saml', 'sp.entityid'],
      ['algorithm_not_in_node_saml', 'security.signature_algorithm'],
      ['algorithm_not_in_node_saml', 'security.digest_algorithm'],
    ]);
    expect(failure.message).toMatch(/^cannot build node-saml settings: .*node-saml needs sp.entityid/);
    expect(failure.message).toContain('and 2 more');
  });

  it('refuses when no SSO endpoint has a binding node-saml can send, or signing lacks the SP key', async () => {
    const { properties } = await importedDomain();
    const artifactOnly = {
      ...properties,
      'idp.single_sign_on_service.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact',
      'idp.single_sign_on_service.0.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:SOAP',
    };
    expect(mappingFailure(() => toNodeSamlConfig(artifactOnly)).errors).toEqual([
      expect.objectContaining({ code: 'sso_binding_not_in_node_saml' }),
    ]);
    const { 'sp.privatekey': _key, ...withoutKey } = properties;
    expect(
      mappingFailure(() => toNodeSamlConfig({ ...withoutKey, 'security.sign_metadata': true })).errors,
    ).toEqual([expect.objectContaining({ code: 'sp_cert_not_found_and_required', key: 'sp.privatekey' })]);
  });
});
