import { describe, expect, it } from 'vitest';
import { testCertificate } from '../../test/support/certificates.js';
import { isSamlConfigError } from '../errors.js';
import { MAX_IDP_ALTERNATIVES } from './idp-alternatives.js';
import { parseProperties, parsePropertyKeyList } from './parse-properties.js';
import { samlPropertyDefinitions, samlPropertyKeys } from './property-definitions.js';

describe('indexed IdP alternative keys', () => {
  it('lists ten of each kind after the spec keys, checked like their spec counterparts', () => {
    const indexed = samlPropertyKeys.filter((key) => /\.\d+(\.|$)/.test(key));
    expect(indexed).toHaveLength(MAX_IDP_ALTERNATIVES * 6);
    expect(samlPropertyKeys.indexOf('contacts.support.email_address')).toBeLessThan(
      samlPropertyKeys.indexOf('idp.single_sign_on_service.0.url'),
    );
    expect(samlPropertyDefinitions['idp.x509certMulti.signing.9']).toEqual({
      kind: 'certificate',
      invalidCode: 'idp_cert_invalid',
    });
    expect(samlPropertyDefinitions['idp.single_logout_service.3.binding'].kind).toBe('binding');
    expect(samlPropertyDefinitions['idp.single_sign_on_service.0.url'].invalidCode).toBe(
      'idp_sso_url_invalid',
    );
  });

  it('normalises an indexed certificate to canonical PEM like idp.x509cert', async () => {
    const { certificatePem } = await testCertificate();
    const oneLine = certificatePem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
    const parsed = parseProperties({ 'idp.x509certMulti.signing.0': oneLine });
    expect(parsed.issues).toEqual([]);
    expect(parsed.properties['idp.x509certMulti.signing.0']).toBe(certificatePem);
  });

  it('reports a bad certificate, a bad binding and a relative URL in indexed keys under those keys', () => {
    const parsed = parseProperties({
      'idp.x509certMulti.signing.1': 'not a certificate',
      'idp.single_sign_on_service.2.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Fax',
      'idp.single_logout_service.0.url': '/slo',
      'idp.single_sign_on_service.2.url': 'https://idp.example.org/sso',
    });
    expect(parsed.issues.map((issue) => [issue.code, issue.key])).toEqual([
      ['idp_cert_invalid', 'idp.x509certMulti.signing.1'],
      ['binding_invalid', 'idp.single_sign_on_service.2.binding'],
      ['idp_slo_url_invalid', 'idp.single_logout_service.0.url'],
    ]);
    expect(parsed.issues[1]?.message).toContain('expected a SAML 2.0 binding URN');
    expect(parsed.issues[2]?.message).toBe('expected an absolute http(s) URL but received "/slo"');
    expect(parsed.properties).toEqual({ 'idp.single_sign_on_service.2.url': 'https://idp.example.org/sso' });
  });

  it('refuses an index past 9 with too_many_alternatives instead of a bare unknown key', () => {
    const parsed = parseProperties({
      'idp.x509certMulti.signing.10': 'x',
      'idp.single_sign_on_service.12.url': 'https://idp.example.org/sso',
      'idp.single_sign_on_service.1.location': 'https://idp.example.org/sso',
    });
    expect(parsed.issues.map((issue) => [issue.code, issue.key])).toEqual([
      ['too_many_alternatives', 'idp.x509certMulti.signing.10'],
      ['too_many_alternatives', 'idp.single_sign_on_service.12.url'],
      ['unknown_key', 'idp.single_sign_on_service.1.location'],
    ]);
    expect(parsed.issues[0]?.message).toBe(
      'expected an index from 0 to 9 in "idp.x509certMulti.signing.10" but received 10: at most 10 alternatives of each kind are kept',
    );
  });

  it('accepts indexed names in a keys list and refuses one past the limit', () => {
    expect(parsePropertyKeyList('idp.x509cert,idp.x509certMulti.signing.0')).toEqual([
      'idp.x509cert',
      'idp.x509certMulti.signing.0',
    ]);
    try {
      parsePropertyKeyList('idp.x509certMulti.signing.11');
      expect.unreachable('expected a failure');
    } catch (error) {
      expect(isSamlConfigError(error) && error.code).toBe('invalid_parameters');
      expect((error as Error).message).toContain('from 0 to 9');
    }
  });
});
