import { describe, expect, it } from 'vitest';
import { pkcs1KeyPem } from '../../test/support/certificates.js';
import { isSamlConfigError } from '../errors.js';
import { parseProperties, parsePropertyKeyList } from './parse-properties.js';

describe('parseProperties', () => {
  it('names each unknown key, including __proto__ and constructor, without touching Object.prototype', () => {
    const input = JSON.parse(
      '{"__proto__": {"polluted": 1}, "constructor": {"x": 1}, "sp.entityId": "urn:x", "sp.entityid": "urn:sp"}',
    );
    const parsed = parseProperties(input);
    expect(parsed.issues.map((issue) => [issue.code, issue.key])).toEqual([
      ['unknown_key', '__proto__'],
      ['unknown_key', 'constructor'],
      ['unknown_key', 'sp.entityId'],
    ]);
    expect(parsed.issues[0]?.message).toContain('unknown property "__proto__"');
    expect(parsed.properties).toEqual({ 'sp.entityid': 'urn:sp' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('names the first 100 unknown keys and counts the others in one last issue', () => {
    const input: Record<string, unknown> = { 'sp.entityid': 'urn:sp' };
    for (let index = 0; index < 25_000; index += 1) input[`custom.${index}`] = 'x';
    const parsed = parseProperties(input);
    expect(parsed.issues).toHaveLength(101);
    expect(parsed.issues[99]).toMatchObject({ code: 'unknown_key', key: 'custom.99' });
    expect(parsed.issues[100]).toEqual({
      code: 'unknown_key',
      message: 'and 24900 more unknown properties, not listed',
    });
    expect(parsed.properties).toEqual({ 'sp.entityid': 'urn:sp' });
  });

  it('accepts booleans as JSON booleans or the strings true/false in any case, and refuses anything else', () => {
    const parsed = parseProperties({
      'security.authnrequest_signed': true,
      'security.sign_metadata': 'false',
      'security.want_xml_validation': ' TRUE ',
      'security.nameid_encrypted': 'yes',
      'security.want_messages_signed': 1,
    });
    expect(parsed.properties).toEqual({
      'security.authnrequest_signed': true,
      'security.sign_metadata': false,
      'security.want_xml_validation': true,
    });
    expect(parsed.issues).toEqual([
      {
        code: 'boolean_invalid',
        key: 'security.nameid_encrypted',
        message: 'expected true or false but received "yes"',
      },
      {
        code: 'boolean_invalid',
        key: 'security.want_messages_signed',
        message: 'expected true or false but received a number',
      },
    ]);
  });

  it('treats null and blank strings as absent (blankKeys), except the authn context where blank means "send none"', () => {
    const parsed = parseProperties({
      'sp.entityid': '  ',
      'idp.entityid': null,
      'security.requested_authncontext': '',
    });
    expect(parsed.blankKeys).toEqual(['sp.entityid', 'idp.entityid']);
    expect(parsed.properties).toEqual({ 'security.requested_authncontext': '' });
    expect(parsed.issues).toEqual([]);
  });

  it('accepts the four XML digest URIs for security.digest_algorithm and refuses anything else with digest_algorithm_invalid', () => {
    const digests = [
      'http://www.w3.org/2000/09/xmldsig#sha1',
      'http://www.w3.org/2001/04/xmlenc#sha256',
      'http://www.w3.org/2001/04/xmldsig-more#sha384',
      'http://www.w3.org/2001/04/xmlenc#sha512',
    ];
    for (const digest of digests) {
      const parsed = parseProperties({ 'security.digest_algorithm': ` ${digest} ` });
      expect(parsed.issues).toEqual([]);
      expect(parsed.properties['security.digest_algorithm']).toBe(digest);
    }
    const md5 = parseProperties({
      'security.digest_algorithm': 'http://www.w3.org/2001/04/xmldsig-more#md5',
    });
    expect(md5.issues).toEqual([
      {
        code: 'digest_algorithm_invalid',
        key: 'security.digest_algorithm',
        message: `expected an XML digest algorithm URI (one of ${digests.join(', ')}) but received "http://www.w3.org/2001/04/xmldsig-more#md5"`,
      },
    ]);
    const swapped = parseProperties({
      'security.digest_algorithm': 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    });
    expect(swapped.issues[0]?.code).toBe('digest_algorithm_invalid');
    expect(swapped.issues[0]?.message).toContain('belong in security.signature_algorithm');
    expect(parseProperties({ 'security.digest_algorithm': 'SHA256' }).issues[0]?.code).toBe(
      'digest_algorithm_invalid',
    );
  });

  it('reports malformed values with the java-saml style code of their property', () => {
    const parsed = parseProperties({
      'sp.assertion_consumer_service.url': 'not a url',
      'idp.single_sign_on_service.url': 'ftp://idp.example/sso',
      'sp.assertion_consumer_service.binding': 'HTTP-POST',
      'sp.nameidformat': 'email',
      'security.requested_authncontextcomparison': 'at least',
      'security.signature_algorithm': 'http://www.w3.org/2000/09/xmldsig#dsa-sha1',
      'contacts.support.email_address': 'nobody',
      'organization.lang': 'english language',
      'sp.entityid': 42,
      'idp.x509cert': 'MIIB',
    });
    expect(parsed.issues.map((issue) => issue.code)).toEqual([
      'sp_acs_url_invalid',
      'idp_sso_url_invalid',
      'binding_invalid',
      'nameidformat_invalid',
      'authncontextcomparison_invalid',
      'signature_algorithm_invalid',
      'contact_email_invalid',
      'organization_lang_invalid',
      'sp_entityId_invalid',
      'idp_cert_invalid',
    ]);
    expect(parsed.issues[0]?.message).toBe('expected an absolute http(s) URL but received "not a url"');
    expect(parsed.issues[5]?.message).toContain('DSA');
  });

  it('normalises values: trims, lower-cases the comparison, drops blanks from the authn context list', () => {
    const parsed = parseProperties({
      'sp.entityid': '  https://sp.example/metadata  ',
      'security.requested_authncontextcomparison': 'Minimum',
      'security.requested_authncontext':
        'urn:oasis:names:tc:SAML:2.0:ac:classes:Password, ,urn:oasis:names:tc:SAML:2.0:ac:classes:X509',
    });
    expect(parsed.properties).toEqual({
      'sp.entityid': 'https://sp.example/metadata',
      'security.requested_authncontextcomparison': 'minimum',
      'security.requested_authncontext':
        'urn:oasis:names:tc:SAML:2.0:ac:classes:Password,urn:oasis:names:tc:SAML:2.0:ac:classes:X509',
    });
  });

  it('stores a PKCS#1 private key as PKCS#8 and never puts key text into an issue', () => {
    const pkcs1 = pkcs1KeyPem();
    const parsed = parseProperties({ 'sp.privatekey': pkcs1 });
    expect(parsed.properties['sp.privatekey']).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    const broken = parseProperties({ 'sp.privatekey': pkcs1.slice(0, 200) });
    expect(broken.issues[0]?.code).toBe('sp_privatekey_invalid');
    expect(JSON.stringify(broken.issues)).not.toContain(pkcs1.split('\n')[1]?.slice(0, 16));
  });

  it('never quotes text that looks like a key, even in the wrong property', () => {
    const pkcs1 = pkcs1KeyPem();
    const body = pkcs1.replace(/-----[A-Z ]+-----|\s/g, '');
    const parsed = parseProperties({
      'organization.name': pkcs1.slice(0, 300),
      'sp.entityid': body.slice(0, 300),
    });
    expect(parsed.issues.map((issue) => issue.message)).toEqual([
      'expected text without control characters but received text that looks like a key (not shown)',
      'expected an absolute URI but received text that looks like a key (not shown)',
    ]);
  });

  it('refuses a body that is not an object with invalid_properties', () => {
    for (const input of [[], 'text', 5, null]) {
      const error = (() => {
        try {
          parseProperties(input);
        } catch (caught) {
          return caught;
        }
      })();
      expect(isSamlConfigError(error, 'invalid_properties')).toBe(true);
    }
  });
});

describe('parsePropertyKeyList', () => {
  it('splits on commas, trims, removes duplicates and names an unknown key', () => {
    expect(parsePropertyKeyList(' sp.entityid, idp.entityid ,sp.entityid,')).toEqual([
      'sp.entityid',
      'idp.entityid',
    ]);
    expect(() => parsePropertyKeyList('sp.entityid,bogus')).toThrow('unknown property "bogus"');
  });
});
