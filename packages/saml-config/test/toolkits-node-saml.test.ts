import { SAML } from '@node-saml/node-saml';
import { describe, expect, it } from 'vitest';
import { readDocument } from '../src/import/read-document.js';
import {
  defaultAcsUrlTemplate,
  defaultSpEntityIdTemplate,
  effectiveProperties,
} from '../src/model/defaults.js';
import { toNodeSamlConfig } from '../src/toolkits/to-node-saml-config.js';
import { testCertificate } from './support/certificates.js';
import { idpMetadata } from './support/metadata.js';

/** The mapping fed to node-saml itself (a dev dependency of these tests only), as an integrator would. */
describe('toNodeSamlConfig with the real @node-saml/node-saml', () => {
  it('builds a SAML instance that makes signed redirect requests and SP metadata from stored properties', async () => {
    const idp = await testCertificate({ commonName: 'idp.example' });
    const sp = await testCertificate({ commonName: 'example.com' });
    const read = readDocument(
      idpMetadata({ certificates: [idp.certificatePem], ssoBindings: ['HTTP-Redirect', 'HTTP-POST'] }),
      { maxBytes: 1_048_576, now: new Date() },
    );
    const properties = effectiveProperties(
      {
        ...read.parsed.properties,
        'sp.x509cert': sp.certificatePem,
        'sp.privatekey': sp.privateKeyPem,
        'security.authnrequest_signed': true,
      },
      {
        domain: 'example.com',
        publicUrl: 'https://mail.example.com',
        spEntityIdTemplate: defaultSpEntityIdTemplate,
        acsUrlTemplate: defaultAcsUrlTemplate,
      },
    );
    const saml = new SAML(toNodeSamlConfig(properties));
    const url = new URL(await saml.getAuthorizeUrlAsync('relay', undefined, {}));
    expect(`${url.origin}${url.pathname}`).toBe('https://idp.example.org/sso/http-redirect');
    expect(url.searchParams.get('SigAlg')).toBe('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    expect(url.searchParams.get('Signature')).toMatch(/^[A-Za-z0-9+/=]{100,}$/);
    const metadata = saml.generateServiceProviderMetadata(null, sp.certificatePem);
    expect(metadata).toContain('entityID="https://mail.example.com/zx/auth/samlMetadata?domain=example.com"');
    expect(metadata).toContain('Location="https://mail.example.com/zx/auth/saml"');
  });
});
