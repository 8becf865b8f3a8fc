/**
 * The subset of `@node-saml/node-saml`'s `SamlConfig` that {@link toNodeSamlConfig} fills, declared
 * here so this package does not depend on node-saml. Field names and value forms were checked against
 * node-saml 5.1.0 (`src/types.ts` `SamlOptions` / `SamlConfig`, `src/algorithms.ts`, `src/saml.ts`
 * `initialize`, and the README's option list); the object can be passed to `new SAML(config)` or to
 * passport-saml's strategy as is.
 */
export interface NodeSamlConfig {
  /** SP entity ID (`sp.entityid`). */
  issuer: string;
  /** Where the IdP posts assertions (`sp.assertion_consumer_service.url`). */
  callbackUrl: string;
  /** Every trusted IdP signing certificate, as PEM: `idp.x509cert` first, then the alternatives. */
  idpCert: string[];
  /** The IdP SSO endpoint whose binding node-saml sends (`authnRequestBinding`). */
  entryPoint: string;
  /** How node-saml sends the AuthnRequest; node-saml knows no other binding. */
  authnRequestBinding: 'HTTP-Redirect' | 'HTTP-POST';
  /** The IdP entity ID, checked by node-saml on incoming logout messages (`idp.entityid`). */
  idpIssuer?: string;
  /** The IdP SLO endpoint with the HTTP-Redirect binding, the only one node-saml sends logout to. */
  logoutUrl?: string;
  /** SP SLO location published in node-saml's metadata (`sp.single_logout_service.url`). */
  logoutCallbackUrl?: string;
  /** NameID format requested (`sp.nameidformat`). */
  identifierFormat: string;
  /** Require signed assertions (`security.want_assertions_signed`). */
  wantAssertionsSigned: boolean;
  /** Require a signature on the whole response (`security.want_messages_signed`). */
  wantAuthnResponseSigned: boolean;
  /** Short name of `security.signature_algorithm`. */
  signatureAlgorithm: 'sha1' | 'sha256' | 'sha512';
  /** Short name of `security.digest_algorithm`. */
  digestAlgorithm: 'sha1' | 'sha256' | 'sha512';
  /** The SP key (PKCS#8 PEM), present only when something is to be signed: node-saml signs every request once it has a key. */
  privateKey?: string;
  /** The SP certificate (PEM), beside `privateKey`. */
  publicCert?: string;
  /** The SP key again, for decrypting assertions, when encrypted assertions or NameIDs are wanted. */
  decryptionPvk?: string;
  /** Requested authentication context classes (`security.requested_authncontext`). */
  authnContext?: string[];
  /** True when `security.requested_authncontext` is empty: no RequestedAuthnContext is sent. */
  disableRequestedAuthnContext?: boolean;
  /** `security.requested_authncontextcomparison`. */
  racComparison: 'exact' | 'minimum' | 'maximum' | 'better';
  /** Sign node-saml's SP metadata (`security.sign_metadata`). */
  signMetadata: boolean;
  /** `organization.*`, when name, display name and URL are all set. */
  metadataOrganization?: {
    OrganizationName: { '@xml:lang': string; '#text': string }[];
    OrganizationDisplayName: { '@xml:lang': string; '#text': string }[];
    OrganizationURL: { '@xml:lang': string; '#text': string }[];
  };
  /** `contacts.technical.*` and `contacts.support.*`, those with a name or an address. */
  metadataContactPerson?: {
    '@contactType': 'technical' | 'support';
    GivenName?: string;
    EmailAddress?: [string];
  }[];
}
