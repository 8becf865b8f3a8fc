import type { SamlPropertyDefinition } from './property-definitions.js';

/**
 * How many alternatives of each kind are kept beside the spec's single key: ten more signing
 * certificates, ten more SSO endpoints, ten more SLO endpoints. IdPs rolling a key publish two or
 * three certificates and list one endpoint per binding (four SAML bindings exist), so ten leaves room
 * while bounding every stored set and every certificate check of a validation.
 */
export const MAX_IDP_ALTERNATIVES = 10;

/** The index of an alternative, 0 to 9 (see {@link MAX_IDP_ALTERNATIVES}). */
export type IdpAlternativeIndex = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;

/** Every alternative index, in order. */
export const idpAlternativeIndexes: readonly IdpAlternativeIndex[] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

const SSO_URL = { kind: 'url', invalidCode: 'idp_sso_url_invalid' } as const;
const SLO_URL = { kind: 'url', invalidCode: 'idp_slo_url_invalid' } as const;
const SLO_RESPONSE_URL = { kind: 'url', invalidCode: 'idp_slo_response_url_invalid' } as const;
const BINDING = { kind: 'binding', invalidCode: 'binding_invalid' } as const;
const CERTIFICATE = { kind: 'certificate', invalidCode: 'idp_cert_invalid' } as const;

type Indexed<Name extends string, Definition> = { readonly [Key in Name]: Definition };

/** The definitions of the indexed IdP keys, typed key by key. */
export type IdpAlternativeDefinitions = Indexed<
  `idp.single_sign_on_service.${IdpAlternativeIndex}.url`,
  typeof SSO_URL
> &
  Indexed<`idp.single_sign_on_service.${IdpAlternativeIndex}.binding`, typeof BINDING> &
  Indexed<`idp.single_logout_service.${IdpAlternativeIndex}.url`, typeof SLO_URL> &
  Indexed<`idp.single_logout_service.${IdpAlternativeIndex}.binding`, typeof BINDING> &
  Indexed<`idp.single_logout_service.${IdpAlternativeIndex}.response.url`, typeof SLO_RESPONSE_URL> &
  Indexed<`idp.x509certMulti.signing.${IdpAlternativeIndex}`, typeof CERTIFICATE>;

/** The property names of alternative `index` of each kind. */
export function idpAlternativeKeys(index: IdpAlternativeIndex) {
  return {
    ssoUrl: `idp.single_sign_on_service.${index}.url`,
    ssoBinding: `idp.single_sign_on_service.${index}.binding`,
    sloUrl: `idp.single_logout_service.${index}.url`,
    sloBinding: `idp.single_logout_service.${index}.binding`,
    sloResponseUrl: `idp.single_logout_service.${index}.response.url`,
    certificate: `idp.x509certMulti.signing.${index}`,
  } as const;
}

function buildDefinitions(): IdpAlternativeDefinitions {
  const definitions: Record<string, SamlPropertyDefinition> = {};
  for (const index of idpAlternativeIndexes) {
    const keys = idpAlternativeKeys(index);
    definitions[keys.ssoUrl] = SSO_URL;
    definitions[keys.ssoBinding] = BINDING;
  }
  for (const index of idpAlternativeIndexes) {
    const keys = idpAlternativeKeys(index);
    definitions[keys.sloUrl] = SLO_URL;
    definitions[keys.sloBinding] = BINDING;
    definitions[keys.sloResponseUrl] = SLO_RESPONSE_URL;
  }
  for (const index of idpAlternativeIndexes) definitions[idpAlternativeKeys(index).certificate] = CERTIFICATE;
  return definitions as IdpAlternativeDefinitions;
}

/**
 * The indexed IdP keys that keep what metadata offers beyond the spec's one slot, in the style of
 * java-saml's `idp.x509certMulti.N`. The spec key (`idp.x509cert`, `idp.single_sign_on_service.url`
 * ...) stays the chosen entry; the indexed keys hold the others, numbered from 0, never repeating it:
 * `idp.single_sign_on_service.N.url` / `.N.binding`, `idp.single_logout_service.N.url` / `.N.binding`
 * / `.N.response.url`, and `idp.x509certMulti.signing.N`, for N from 0 to 9.
 */
export const idpAlternativeDefinitions: IdpAlternativeDefinitions = buildDefinitions();

const INDEXED_KEY =
  /^idp\.(?:single_sign_on_service\.(\d+)\.(?:url|binding)|single_logout_service\.(\d+)\.(?:url|binding|response\.url)|x509certMulti\.signing\.(\d+))$/;

/**
 * When `key` has the shape of an indexed IdP key but an index past the limit (`idp.x509certMulti.signing.10`),
 * the sentence saying so; otherwise undefined.
 */
export function describeIndexPastLimit(key: string): string | undefined {
  const match = INDEXED_KEY.exec(key);
  if (match === null) return undefined;
  const index = match[1] ?? match[2] ?? match[3] ?? '';
  return `expected an index from 0 to ${MAX_IDP_ALTERNATIVES - 1} in ${JSON.stringify(key)} but received ${index}: at most ${MAX_IDP_ALTERNATIVES} alternatives of each kind are kept`;
}
