import { describe, expect, it } from 'vitest';
import { testCertificate } from '../../test/support/certificates.js';
import { parseXml, type XmlNode } from '../import/xml-document.js';
import { buildSpMetadata } from './sp-metadata.js';

describe('buildSpMetadata', () => {
  it('follows java-saml: flags, signing and encryption keys, SLO, NameID, ACS, organization, contacts, escaping', async () => {
    const { certificatePem } = await testCertificate();
    const now = new Date('2030-01-01T00:00:00Z');
    const xml = buildSpMetadata(
      {
        'sp.entityid': 'https://sp.example/m?a=1&b="2"',
        'sp.assertion_consumer_service.url': 'https://sp.example/acs',
        'sp.assertion_consumer_service.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
        'sp.single_logout_service.url': 'https://sp.example/slo',
        'sp.single_logout_service.binding': 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
        'sp.nameidformat': 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
        'sp.x509cert': certificatePem,
        'security.authnrequest_signed': true,
        'security.want_assertions_encrypted': true,
        'organization.name': 'Acme & Co',
        'organization.displayname': 'Acme <Display>',
        'organization.url': 'https://acme.example',
        'organization.lang': 'it',
        'contacts.technical.given_name': 'Tech',
        'contacts.technical.email_address': 'tech@acme.example',
      },
      { now },
    );
    const root = (parseXml(xml).EntityDescriptor as XmlNode[])[0] as XmlNode;
    expect(root['@_entityID']).toBe('https://sp.example/m?a=1&b="2"');
    expect(root['@_validUntil']).toBe('2030-01-03T00:00:00.000Z');
    expect(root['@_cacheDuration']).toBe('PT604800S');
    const descriptor = root.SPSSODescriptor as XmlNode;
    expect(descriptor['@_AuthnRequestsSigned']).toBe('true');
    expect(descriptor['@_WantAssertionsSigned']).toBe('false');
    expect((descriptor.KeyDescriptor as XmlNode[]).map((key) => key['@_use'])).toEqual([
      'signing',
      'encryption',
    ]);
    expect((descriptor.SingleLogoutService as XmlNode[])[0]?.['@_Location']).toBe('https://sp.example/slo');
    expect((descriptor.AssertionConsumerService as XmlNode)['@_index']).toBe('1');
    const organization = root.Organization as XmlNode;
    expect((organization.OrganizationName as XmlNode)['#text']).toBe('Acme & Co');
    expect((organization.OrganizationDisplayName as XmlNode)['#text']).toBe('Acme <Display>');
    expect((organization.OrganizationName as XmlNode)['@_lang']).toBe('it');
    expect((root.ContactPerson as XmlNode)['@_contactType']).toBe('technical');
  });

  it('leaves out the encryption key, SLO and organization when not configured', () => {
    const xml = buildSpMetadata(
      { 'sp.entityid': 'urn:sp', 'sp.assertion_consumer_service.url': 'https://sp.example/acs' },
      { now: new Date() },
    );
    expect(xml).not.toContain('KeyDescriptor');
    expect(xml).not.toContain('SingleLogoutService');
    expect(xml).not.toContain('Organization');
  });
});
