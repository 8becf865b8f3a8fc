import { idpAlternativeDefinitions } from './idp-alternatives.js';

/** How a property's value is read and checked. */
export type SamlPropertyKind =
  | 'entity-id'
  | 'url'
  | 'binding'
  | 'nameid-format'
  | 'certificate'
  | 'private-key'
  | 'boolean'
  | 'authn-context'
  | 'authn-comparison'
  | 'signature-algorithm'
  | 'digest-algorithm'
  | 'text'
  | 'language'
  | 'email';

/** The static facts about one SAML property. */
export interface SamlPropertyDefinition {
  readonly kind: SamlPropertyKind;
  /** The validation code reported when a value of this property is malformed. */
  readonly invalidCode: string;
}

const BINDING = { kind: 'binding', invalidCode: 'binding_invalid' } as const;
const BOOLEAN = { kind: 'boolean', invalidCode: 'boolean_invalid' } as const;
const TEXT = { kind: 'text', invalidCode: 'text_invalid' } as const;
const EMAIL = { kind: 'email', invalidCode: 'contact_email_invalid' } as const;

/** The properties of the specification plus java-saml's `security.digest_algorithm`, in spec order. */
const specPropertyDefinitions = {
  'sp.entityid': { kind: 'entity-id', invalidCode: 'sp_entityId_invalid' },
  'sp.assertion_consumer_service.url': { kind: 'url', invalidCode: 'sp_acs_url_invalid' },
  'idp.entityid': { kind: 'entity-id', invalidCode: 'idp_entityId_invalid' },
  'idp.single_sign_on_service.url': { kind: 'url', invalidCode: 'idp_sso_url_invalid' },
  'idp.x509cert': { kind: 'certificate', invalidCode: 'idp_cert_invalid' },
  'sp.x509cert': { kind: 'certificate', invalidCode: 'sp_cert_invalid' },
  'sp.assertion_consumer_service.binding': BINDING,
  'sp.single_logout_service.url': { kind: 'url', invalidCode: 'sp_sls_url_invalid' },
  'sp.single_logout_service.binding': BINDING,
  'sp.nameidformat': { kind: 'nameid-format', invalidCode: 'nameidformat_invalid' },
  'sp.privatekey': { kind: 'private-key', invalidCode: 'sp_privatekey_invalid' },
  'idp.single_sign_on_service.binding': BINDING,
  'idp.single_logout_service.url': { kind: 'url', invalidCode: 'idp_slo_url_invalid' },
  'idp.single_logout_service.response.url': { kind: 'url', invalidCode: 'idp_slo_response_url_invalid' },
  'idp.single_logout_service.binding': BINDING,
  'security.nameid_encrypted': BOOLEAN,
  'security.authnrequest_signed': BOOLEAN,
  'security.logoutrequest_signed': BOOLEAN,
  'security.logoutresponse_signed': BOOLEAN,
  'security.want_messages_signed': BOOLEAN,
  'security.want_assertions_signed': BOOLEAN,
  'security.sign_metadata': BOOLEAN,
  'security.want_assertions_encrypted': BOOLEAN,
  'security.want_nameid_encrypted': BOOLEAN,
  'security.requested_authncontext': { kind: 'authn-context', invalidCode: 'authncontext_invalid' },
  'security.requested_authncontextcomparison': {
    kind: 'authn-comparison',
    invalidCode: 'authncontextcomparison_invalid',
  },
  'security.want_xml_validation': BOOLEAN,
  'security.signature_algorithm': { kind: 'signature-algorithm', invalidCode: 'signature_algorithm_invalid' },
  'security.digest_algorithm': { kind: 'digest-algorithm', invalidCode: 'digest_algorithm_invalid' },
  'organization.name': TEXT,
  'organization.displayname': TEXT,
  'organization.url': { kind: 'url', invalidCode: 'organization_url_invalid' },
  'organization.lang': { kind: 'language', invalidCode: 'organization_lang_invalid' },
  'contacts.technical.given_name': TEXT,
  'contacts.technical.email_address': EMAIL,
  'contacts.support.given_name': TEXT,
  'contacts.support.email_address': EMAIL,
} as const satisfies Record<string, SamlPropertyDefinition>;

/**
 * Every property the API knows: the specification's, in its order, then the indexed IdP alternatives
 * (`idp.x509certMulti.signing.N`, `idp.single_sign_on_service.N.url`... see `idpAlternativeDefinitions`).
 * Keys contain dots and are used literally; any other key is refused with `unknown_key`.
 */
export const samlPropertyDefinitions = { ...specPropertyDefinitions, ...idpAlternativeDefinitions };

/** The name of one SAML property, such as `sp.entityid`. */
export type SamlPropertyKey = keyof typeof samlPropertyDefinitions;

/** The names of the boolean properties. */
export type SamlBooleanPropertyKey = {
  [K in SamlPropertyKey]: (typeof samlPropertyDefinitions)[K]['kind'] extends 'boolean' ? K : never;
}[SamlPropertyKey];

/** A set of SAML properties: booleans as JSON booleans, everything else as strings. */
export type SamlProperties = {
  [K in SamlPropertyKey]?: K extends SamlBooleanPropertyKey ? boolean : string;
};

/** Every property name, in specification order. */
export const samlPropertyKeys: readonly SamlPropertyKey[] = Object.keys(
  samlPropertyDefinitions,
) as SamlPropertyKey[];

const keySet: ReadonlySet<string> = new Set(samlPropertyKeys);

/** Whether `key` names a known SAML property (own names only: `__proto__` and friends are not). */
export function isSamlPropertyKey(key: string): key is SamlPropertyKey {
  return keySet.has(key);
}

/** The kind of property `key`. */
export function propertyKind(key: SamlPropertyKey): SamlPropertyKind {
  return samlPropertyDefinitions[key].kind;
}

/** SAML 2.0 protocol binding URNs. */
export const samlBindings = {
  httpPost: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
  httpRedirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  httpArtifact: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact',
  soap: 'urn:oasis:names:tc:SAML:2.0:bindings:SOAP',
  httpPostSimpleSign: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST-SimpleSign',
  paos: 'urn:oasis:names:tc:SAML:2.0:bindings:PAOS',
} as const;

/** NameID format URNs of SAML 1.1 and 2.0. */
export const nameIdFormats = {
  emailAddress: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  unspecified: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
  x509SubjectName: 'urn:oasis:names:tc:SAML:1.1:nameid-format:X509SubjectName',
  windowsDomainQualifiedName: 'urn:oasis:names:tc:SAML:1.1:nameid-format:WindowsDomainQualifiedName',
  persistent: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  transient: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  entity: 'urn:oasis:names:tc:SAML:2.0:nameid-format:entity',
  kerberos: 'urn:oasis:names:tc:SAML:2.0:nameid-format:kerberos',
  encrypted: 'urn:oasis:names:tc:SAML:2.0:nameid-format:encrypted',
} as const;

/** XML signature algorithm URIs accepted for `security.signature_algorithm` (RSA only). */
export const signatureAlgorithms = {
  rsaSha1: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
  rsaSha256: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  rsaSha384: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384',
  rsaSha512: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512',
} as const;

/**
 * XML digest algorithm URIs accepted for `security.digest_algorithm` (java-saml's key): the hash of
 * the signed references, as opposed to the signature algorithm that signs them.
 */
export const digestAlgorithms = {
  sha1: 'http://www.w3.org/2000/09/xmldsig#sha1',
  sha256: 'http://www.w3.org/2001/04/xmlenc#sha256',
  sha384: 'http://www.w3.org/2001/04/xmldsig-more#sha384',
  sha512: 'http://www.w3.org/2001/04/xmlenc#sha512',
} as const;

/** Comparison methods of `RequestedAuthnContext` (SAML core). */
export const authnContextComparisons = ['exact', 'minimum', 'maximum', 'better'] as const;
