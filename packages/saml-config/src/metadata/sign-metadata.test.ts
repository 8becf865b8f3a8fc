import { describe, expect, it } from 'vitest';
import { pemBody, pkcs1KeyPem, testCertificate } from '../../test/support/certificates.js';
import { parseXml, type XmlNode } from '../import/xml-document.js';
import type { SamlProperties } from '../model/property-definitions.js';
import { signSpMetadata } from './sign-metadata.js';
import { buildSpMetadata } from './sp-metadata.js';

async function signedProperties(overrides: SamlProperties = {}): Promise<SamlProperties> {
  const { certificatePem, privateKeyPem } = await testCertificate({ commonName: 'sp.example' });
  return {
    'sp.entityid': 'https://sp.example/metadata',
    'sp.assertion_consumer_service.url': 'https://sp.example/acs',
    'sp.x509cert': certificatePem,
    'sp.privatekey': privateKeyPem,
    'security.sign_metadata': true,
    ...overrides,
  };
}

function sign(properties: SamlProperties) {
  return signSpMetadata(buildSpMetadata(properties, { now: new Date() }), properties);
}

describe('signSpMetadata', () => {
  it('puts an enveloped signature first in the EntityDescriptor, referencing its ID, with the SP certificate in KeyInfo', async () => {
    const properties = await signedProperties();
    const result = sign(properties);
    if (!result.ok) throw new Error(result.warning.message);
    const root = (parseXml(result.xml).EntityDescriptor as XmlNode[])[0] as XmlNode;
    const id = root['@_ID'];
    expect(id).toMatch(/^_[0-9a-f-]{36}$/);
    expect(result.xml).toMatch(
      /<md:EntityDescriptor [^>]*><ds:Signature xmlns:ds="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#">/,
    );
    expect(result.xml).toContain(`<ds:Reference URI="#${id}">`);
    expect(result.xml).toContain(
      '<ds:Transforms><ds:Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/><ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/></ds:Transforms>',
    );
    expect(result.xml).toContain(
      '<ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>',
    );
    expect(result.xml).toContain(
      '<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>',
    );
    expect(result.xml).toContain('<ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>');
    expect(result.xml).toContain(
      `<ds:KeyInfo><ds:X509Data><ds:X509Certificate>${pemBody(String(properties['sp.x509cert']))}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></ds:Signature>`,
    );
    expect(result.xml).not.toContain('PRIVATE');
  });

  it('uses the configured signature and digest algorithms, the SHA-384 ones included', async () => {
    const sha384 = sign(
      await signedProperties({
        'security.signature_algorithm': 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384',
        'security.digest_algorithm': 'http://www.w3.org/2001/04/xmldsig-more#sha384',
      }),
    );
    expect(sha384.ok && sha384.xml).toContain(
      '<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha384"/>',
    );
    const result = sign(
      await signedProperties({
        'security.signature_algorithm': 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512',
        'security.digest_algorithm': 'http://www.w3.org/2001/04/xmlenc#sha512',
      }),
    );
    expect(result.ok && result.xml).toContain(
      '<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha512"/>',
    );
    expect(result.ok && result.xml).toContain(
      '<ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha512"/>',
    );
  });

  it('answers metadata_not_signed naming the property when the key or certificate is missing, unusable or mismatched', async () => {
    const properties = await signedProperties();
    const cases: [SamlProperties, string, string][] = [
      [{ ...properties, 'sp.privatekey': undefined }, 'sp.privatekey', 'sp.privatekey is missing'],
      [{ ...properties, 'sp.x509cert': undefined }, 'sp.x509cert', 'sp.x509cert is missing'],
      [{ ...properties, 'sp.privatekey': 'not a key' }, 'sp.privatekey', 'sp.privatekey is unusable'],
      [{ ...properties, 'sp.x509cert': 'AAAA' }, 'sp.x509cert', 'sp.x509cert is unusable'],
      [
        { ...properties, 'sp.privatekey': pkcs1KeyPem() },
        'sp.privatekey',
        'is not the private key of sp.x509cert',
      ],
    ];
    for (const [input, key, message] of cases) {
      const result = signSpMetadata(buildSpMetadata(properties, { now: new Date() }), input);
      expect(result).toEqual({
        ok: false,
        warning: { code: 'metadata_not_signed', key, message: expect.stringContaining(message) },
      });
      expect(result.ok || result.warning.message).toContain('served unsigned');
    }
  });
});
