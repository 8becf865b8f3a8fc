import { pemBody } from './certificates.js';

/** What a generated IdP metadata fixture contains. */
export interface IdpFixture {
  entityId?: string;
  certificates?: string[];
  signingUse?: 'signing' | 'encryption' | 'none';
  ssoBindings?: string[];
  sloLocation?: string;
  sloResponseLocation?: string;
  /** Bindings of the SingleLogoutService elements (default HTTP-Redirect only); each after the first gets `<sloLocation>/<binding>`. */
  sloBindings?: string[];
  nameIdFormats?: string[];
  validUntil?: string;
  wantAuthnRequestsSigned?: boolean;
}

const BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:';

/** An `md:EntityDescriptor` element (no XML declaration) describing one IdP. */
export function entityDescriptor(fixture: IdpFixture = {}): string {
  const entityId = fixture.entityId ?? 'https://idp.example.org/saml/metadata';
  const use = fixture.signingUse === 'none' ? '' : ` use="${fixture.signingUse ?? 'signing'}"`;
  const keys = (fixture.certificates ?? [])
    .map(
      (pem) =>
        `<md:KeyDescriptor${use}><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>\n${pemBody(
          pem,
        )
          .match(/.{1,64}/g)
          ?.join('\n')}\n</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
    )
    .join('');
  const sso = (fixture.ssoBindings ?? ['HTTP-POST', 'HTTP-Redirect'])
    .map(
      (binding) =>
        `<md:SingleSignOnService Binding="${BINDING}${binding}" Location="https://idp.example.org/sso/${binding.toLowerCase()}?a=1&amp;b=2"/>`,
    )
    .join('');
  const responseLocation = fixture.sloResponseLocation
    ? ` ResponseLocation="${fixture.sloResponseLocation}"`
    : '';
  const slo =
    fixture.sloLocation === undefined
      ? ''
      : (fixture.sloBindings ?? ['HTTP-Redirect'])
          .map(
            (binding, index) =>
              `<md:SingleLogoutService Binding="${BINDING}${binding}" Location="${fixture.sloLocation}${index === 0 ? '' : `/${binding.toLowerCase()}`}"${index === 0 ? responseLocation : ''}/>`,
          )
          .join('');
  const formats = (
    fixture.nameIdFormats ?? [
      'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
      'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    ]
  )
    .map((format) => `<md:NameIDFormat>${format}</md:NameIDFormat>`)
    .join('');
  const validUntil = fixture.validUntil === undefined ? '' : ` validUntil="${fixture.validUntil}"`;
  const want =
    fixture.wantAuthnRequestsSigned === undefined
      ? ''
      : ` WantAuthnRequestsSigned="${fixture.wantAuthnRequestsSigned}"`;
  return `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${entityId}"${validUntil}><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"${want}>${keys}${slo}${formats}${sso}</md:IDPSSODescriptor></md:EntityDescriptor>`;
}

/** A complete IdP metadata document. */
export function idpMetadata(fixture: IdpFixture = {}): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${entityDescriptor(fixture)}`;
}
