import { describe, expect, it } from 'vitest';
import { testCertificate } from '../../test/support/certificates.js';
import type { SamlProperties } from '../model/property-definitions.js';
import { validateProperties } from './validate-properties.js';

const now = new Date();
const validate = (properties: SamlProperties) =>
  validateProperties(properties, { now, expiryWarningDays: 30 });
const codes = (issues: { code: string }[]) => issues.map((issue) => issue.code);

async function complete(): Promise<SamlProperties> {
  const idp = await testCertificate({ commonName: 'idp.example.org' });
  const sp = await testCertificate({ commonName: 'sp.example.com' });
  return {
    'sp.entityid': 'https://sp.example.com/metadata',
    'sp.assertion_consumer_service.url': 'https://sp.example.com/acs',
    'sp.assertion_consumer_service.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
    'sp.nameidformat': 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    'sp.x509cert': sp.certificatePem,
    'sp.privatekey': sp.privateKeyPem,
    'idp.entityid': 'https://idp.example.org/metadata',
    'idp.single_sign_on_service.url': 'https://idp.example.org/sso',
    'idp.single_sign_on_service.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
    'idp.x509cert': idp.certificatePem,
    'security.want_assertions_signed': true,
    'security.authnrequest_signed': true,
  };
}

describe('validateProperties', () => {
  it('accepts a complete configuration and reports both certificates with their expiry', async () => {
    const report = validate(await complete());
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.certificates.idp?.subject).toBe('CN=idp.example.org');
    expect([364, 365]).toContain(report.certificates.idp?.daysRemaining);
    expect(report.certificates.sp?.publicKeyBits).toBe(2048);
    expect(report.certificates.sp?.signatureHash).toBe('SHA-256');
  });

  it('reads certificates given as base64 of a PEM text like the stored canonical form: summaries and key match', async () => {
    const properties = await complete();
    const encoded = (pem: unknown) => Buffer.from(String(pem)).toString('base64');
    const report = validate({
      ...properties,
      'sp.x509cert': encoded(properties['sp.x509cert']),
      'idp.x509cert': encoded(properties['idp.x509cert']),
    });
    expect(report.errors).toEqual([]);
    expect(report.certificates).toEqual(validate(properties).certificates);
    const other = await testCertificate({ commonName: 'other.example.com' });
    const mismatch = validate({ ...properties, 'sp.x509cert': encoded(other.certificatePem) });
    expect(codes(mismatch.errors)).toEqual(['sp_cert_privatekey_mismatch']);
  });

  it('reports java-saml codes for an empty configuration, SP checks first', () => {
    const report = validate({});
    expect(codes(report.errors)).toEqual([
      'sp_entityId_not_found',
      'sp_acs_not_found',
      'idp_entityId_not_found',
      'idp_sso_url_invalid',
      'idp_cert_or_fingerprint_not_found_and_required',
    ]);
    expect(report.ok).toBe(false);
  });

  it('requires the SP certificate and key when a flag needs them, and the IdP certificate for encrypted NameIDs', async () => {
    const properties = await complete();
    delete properties['sp.privatekey'];
    delete properties['idp.x509cert'];
    properties['security.nameid_encrypted'] = true;
    const report = validate(properties);
    expect(codes(report.errors)).toEqual([
      'sp_cert_not_found_and_required',
      'idp_cert_or_fingerprint_not_found_and_required',
      'idp_cert_not_found_and_required',
    ]);
    expect(report.errors[0]?.message).toContain('security.authnrequest_signed');
    expect(codes(report.warnings)).toContain('sp_cert_privatekey_incomplete');
  });

  it('reports a private key that does not belong to the certificate', async () => {
    const properties = await complete();
    properties['sp.privatekey'] = (await testCertificate({ commonName: 'other' })).privateKeyPem;
    expect(codes(validate(properties).errors)).toEqual(['sp_cert_privatekey_mismatch']);
  });

  it('asks for name, displayname and url together when any organization field is set', async () => {
    const properties = { ...(await complete()), 'organization.name': 'Acme' };
    const report = validate(properties);
    expect(codes(report.errors)).toEqual(['organization_not_enough_data']);
    expect(report.errors[0]?.message).toContain('organization.displayname, organization.url');
  });

  it('warns about expired, not yet valid and soon expiring certificates', async () => {
    const expired = await testCertificate({ issuedDaysAgo: 400, days: 30 });
    const future = await testCertificate({ issuedDaysAgo: -10 });
    const soon = await testCertificate({ issuedDaysAgo: 355, days: 365 });
    const base = await complete();
    expect(codes(validate({ ...base, 'idp.x509cert': expired.certificatePem }).warnings)).toEqual([
      'idp_cert_expired',
    ]);
    expect(codes(validate({ ...base, 'idp.x509cert': future.certificatePem }).warnings)).toEqual([
      'idp_cert_not_yet_valid',
    ]);
    const expiring = validate({ ...base, 'idp.x509cert': soon.certificatePem });
    expect(codes(expiring.warnings)).toEqual(['idp_cert_expiring_soon']);
    expect([9, 10]).toContain(expiring.certificates.idp?.daysRemaining);
    const spSoon = validate({
      ...base,
      'sp.x509cert': soon.certificatePem,
      'sp.privatekey': soon.privateKeyPem,
    });
    expect(codes(spSoon.warnings)).toEqual(['sp_cert_expiring_soon']);
  });

  it('warns about SHA-1 certificates, small keys, rsa-sha1, sha1 digests, plain http, unsupported bindings and non-email NameIDs', async () => {
    const sha1 = await testCertificate({ digest: 'SHA-1' });
    const small = await testCertificate({ keyBits: 1024 });
    const report = validate({
      ...(await complete()),
      'sp.x509cert': small.certificatePem,
      'sp.privatekey': small.privateKeyPem,
      'idp.x509cert': sha1.certificatePem,
      'security.signature_algorithm': 'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
      'security.digest_algorithm': 'http://www.w3.org/2000/09/xmldsig#sha1',
      'idp.single_sign_on_service.url': 'http://idp.example.org/sso',
      'idp.single_sign_on_service.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
      'sp.assertion_consumer_service.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact',
      'sp.nameidformat': 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      'security.want_assertions_signed': false,
    });
    expect(report.errors).toEqual([]);
    expect(codes(report.warnings)).toEqual([
      'signature_algorithm_deprecated',
      'digest_algorithm_deprecated',
      'insecure_url',
      'no_signature_required',
      'nameidformat_not_email',
      'acs_binding_unsupported',
      'sso_binding_unsupported',
      'sp_key_too_small',
      'cert_signed_with_sha1',
    ]);
  });

  it('checks only the IdP side with scope idp', () => {
    const report = validateProperties({}, { now, expiryWarningDays: 30, scope: 'idp' });
    expect(codes(report.errors)).toEqual([
      'idp_entityId_not_found',
      'idp_sso_url_invalid',
      'idp_cert_or_fingerprint_not_found_and_required',
    ]);
  });
});

describe('validateProperties: alternative IdP certificates and endpoints', () => {
  it('summarises each alternative certificate and warns about an expired one under its own key', async () => {
    const expired = await testCertificate({ issuedDaysAgo: 400, days: 30 });
    const next = await testCertificate({ commonName: 'idp-next.example.org' });
    const report = validate({
      ...(await complete()),
      'idp.x509certMulti.signing.0': next.certificatePem,
      'idp.x509certMulti.signing.1': expired.certificatePem,
    });
    expect(report.errors).toEqual([]);
    expect(report.certificates.idpAlternatives?.['idp.x509certMulti.signing.0']?.subject).toBe(
      'CN=idp-next.example.org',
    );
    expect(report.warnings).toEqual([
      expect.objectContaining({ code: 'idp_cert_expired', key: 'idp.x509certMulti.signing.1' }),
    ]);
    expect(report.warnings[0]?.message).toContain(
      'alternative IdP (idp.x509certMulti.signing.1) certificate',
    );
  });

  it('refuses an alternative endpoint missing its binding or URL, and warns about plain http', async () => {
    const report = validate({
      ...(await complete()),
      'idp.single_sign_on_service.0.url': 'http://idp.example.org/sso-post',
      'idp.single_logout_service.1.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
      'idp.single_logout_service.2.response.url': 'https://idp.example.org/slo-response',
    });
    expect(report.ok).toBe(false);
    expect(report.errors.map((issue) => [issue.code, issue.key])).toEqual([
      ['idp_endpoint_incomplete', 'idp.single_sign_on_service.0.binding'],
      ['idp_endpoint_incomplete', 'idp.single_logout_service.1.url'],
      ['idp_endpoint_incomplete', 'idp.single_logout_service.2.url'],
    ]);
    expect(report.warnings.map((issue) => [issue.code, issue.key])).toEqual([
      ['insecure_url', 'idp.single_sign_on_service.0.url'],
    ]);
  });
});
