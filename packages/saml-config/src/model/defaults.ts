import {
  digestAlgorithms,
  nameIdFormats,
  type SamlProperties,
  type SamlPropertyKey,
  samlBindings,
  samlPropertyKeys,
  signatureAlgorithms,
} from './property-definitions.js';

/** Where the per-domain defaults of the SP entity ID and ACS URL come from. */
export interface DefaultsContext {
  /** The normalised domain. */
  domain: string;
  /** Public base URL of the service (`https://mail.example.com`); without it no SP URLs are derived. */
  publicUrl?: string | undefined;
  /** Template of `sp.entityid`; `{publicUrl}` and `{domain}` are replaced. */
  spEntityIdTemplate: string;
  /** Template of `sp.assertion_consumer_service.url`; `{publicUrl}` and `{domain}` are replaced. */
  acsUrlTemplate: string;
}

/** The SP entity ID default of the original product. */
export const defaultSpEntityIdTemplate = '{publicUrl}/zx/auth/samlMetadata?domain={domain}';
/** The ACS URL default of the original product. */
export const defaultAcsUrlTemplate = '{publicUrl}/zx/auth/saml';

const staticDefaults: SamlProperties = {
  'sp.assertion_consumer_service.binding': samlBindings.httpPost,
  'sp.single_logout_service.binding': samlBindings.httpRedirect,
  'sp.nameidformat': nameIdFormats.emailAddress,
  'idp.single_sign_on_service.binding': samlBindings.httpRedirect,
  'idp.single_logout_service.binding': samlBindings.httpRedirect,
  'security.nameid_encrypted': false,
  'security.authnrequest_signed': false,
  'security.logoutrequest_signed': false,
  'security.logoutresponse_signed': false,
  'security.want_messages_signed': false,
  'security.want_assertions_signed': false,
  'security.sign_metadata': false,
  'security.want_assertions_encrypted': false,
  'security.want_nameid_encrypted': false,
  'security.requested_authncontext': 'urn:oasis:names:tc:SAML:2.0:ac:classes:Password',
  'security.requested_authncontextcomparison': 'exact',
  'security.want_xml_validation': true,
  'security.signature_algorithm': signatureAlgorithms.rsaSha256,
  'security.digest_algorithm': digestAlgorithms.sha256,
  'organization.lang': 'en',
};

function fillTemplate(template: string, context: DefaultsContext, publicUrl: string): string {
  return template
    .replaceAll('{publicUrl}', publicUrl.replace(/\/+$/, ''))
    .replaceAll('{domain}', encodeURIComponent(context.domain));
}

/**
 * The values applied to properties that are not stored: the original product's defaults (HTTP-POST ACS,
 * emailAddress NameID, HTTP-Redirect IdP bindings, signing flags false, `want_xml_validation` true,
 * Password authn context compared `exact`, rsa-sha256 signatures over sha256 digests) plus the SP entity ID and ACS URL derived
 * from the public URL when one is configured.
 */
export function defaultProperties(context: DefaultsContext): SamlProperties {
  const derived: SamlProperties = {};
  if (context.publicUrl !== undefined && context.publicUrl !== '') {
    derived['sp.entityid'] = fillTemplate(context.spEntityIdTemplate, context, context.publicUrl);
    derived['sp.assertion_consumer_service.url'] = fillTemplate(
      context.acsUrlTemplate,
      context,
      context.publicUrl,
    );
  }
  return { ...derived, ...staticDefaults };
}

/** Returns the properties in specification order (stable JSON output). */
export function orderProperties(properties: SamlProperties): SamlProperties {
  const ordered: Record<string, string | boolean> = {};
  for (const key of samlPropertyKeys) {
    const value = properties[key];
    if (value !== undefined) ordered[key] = value;
  }
  return ordered as SamlProperties;
}

/** The stored properties overlaid on the defaults, in specification order. */
export function effectiveProperties(stored: SamlProperties, context: DefaultsContext): SamlProperties {
  return orderProperties({ ...defaultProperties(context), ...stored });
}

/** Only the listed keys of `properties` (all of them when `keys` is undefined). */
export function pickProperties(
  properties: SamlProperties,
  keys: readonly SamlPropertyKey[] | undefined,
): SamlProperties {
  if (keys === undefined) return properties;
  const picked: Record<string, string | boolean> = {};
  for (const key of keys) {
    const value = properties[key];
    if (value !== undefined) picked[key] = value;
  }
  return orderProperties(picked as SamlProperties);
}
