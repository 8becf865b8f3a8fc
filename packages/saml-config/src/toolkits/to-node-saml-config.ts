import { SamlConfigError } from '../errors.js';
import { idpAlternativeIndexes, idpAlternativeKeys } from '../model/idp-alternatives.js';
import { type SamlIssue, summarizeIssues } from '../model/issues.js';
import {
  digestAlgorithms,
  nameIdFormats,
  type SamlProperties,
  samlBindings,
  signatureAlgorithms,
} from '../model/property-definitions.js';
import type { NodeSamlConfig } from './node-saml-config.js';
import { metadataContacts, metadataOrganization } from './node-saml-metadata.js';

type ShortAlgorithm = NodeSamlConfig['signatureAlgorithm'];

/** node-saml's `getSigningAlgorithm`: the only signature URIs it names (it has no sha384). */
const signatureShortNames: Readonly<Record<string, ShortAlgorithm>> = {
  [signatureAlgorithms.rsaSha1]: 'sha1',
  [signatureAlgorithms.rsaSha256]: 'sha256',
  [signatureAlgorithms.rsaSha512]: 'sha512',
};

/** node-saml's `getDigestAlgorithm`: the only digest URIs it names (it has no sha384). */
const digestShortNames: Readonly<Record<string, ShortAlgorithm>> = {
  [digestAlgorithms.sha1]: 'sha1',
  [digestAlgorithms.sha256]: 'sha256',
  [digestAlgorithms.sha512]: 'sha512',
};

/** The binding URNs node-saml can send an AuthnRequest with, and its names for them. */
const requestBindings: Readonly<Record<string, NodeSamlConfig['authnRequestBinding']>> = {
  [samlBindings.httpRedirect]: 'HTTP-Redirect',
  [samlBindings.httpPost]: 'HTTP-POST',
};

interface Endpoint {
  url: string;
  binding: string | undefined;
}

function endpoints(properties: SamlProperties, side: 'sso' | 'slo'): Endpoint[] {
  const prefix = side === 'sso' ? 'idp.single_sign_on_service' : 'idp.single_logout_service';
  const first = properties[`${prefix}.url`];
  const list: Endpoint[] = first ? [{ url: first, binding: properties[`${prefix}.binding`] }] : [];
  for (const index of idpAlternativeIndexes) {
    const keys = idpAlternativeKeys(index);
    const url = properties[side === 'sso' ? keys.ssoUrl : keys.sloUrl];
    const binding = properties[side === 'sso' ? keys.ssoBinding : keys.sloBinding];
    if (url) list.push({ url, binding });
  }
  return list;
}

/** Every trusted IdP certificate, `idp.x509cert` first, without repeats. */
function idpCertificates(properties: SamlProperties): string[] {
  const all = [
    properties['idp.x509cert'],
    ...idpAlternativeIndexes.map((index) => properties[idpAlternativeKeys(index).certificate]),
  ];
  return [...new Set(all.filter((pem): pem is string => pem !== undefined && pem !== ''))];
}

function shortName(
  table: Readonly<Record<string, ShortAlgorithm>>,
  key: 'security.signature_algorithm' | 'security.digest_algorithm',
  value: string,
  issues: SamlIssue[],
): ShortAlgorithm {
  const short = table[value];
  if (short !== undefined) return short;
  issues.push({
    code: 'algorithm_not_in_node_saml',
    key,
    message: `node-saml names only sha1, sha256 and sha512 (${Object.keys(table).join(', ')}) but ${key} is ${JSON.stringify(value)}; choose one of those`,
  });
  return 'sha256';
}

function required(properties: SamlProperties, key: keyof SamlProperties, issues: SamlIssue[]): string {
  const value = properties[key];
  if (typeof value === 'string' && value !== '') return value;
  issues.push({ code: 'required_by_node_saml', key, message: `node-saml needs ${key}, which is not set` });
  return '';
}

function chooseEntryPoint(
  properties: SamlProperties,
  prefer: NodeSamlConfig['authnRequestBinding'] | undefined,
  issues: SamlIssue[],
): Endpoint & { binding: NodeSamlConfig['authnRequestBinding'] } {
  const usable = endpoints(properties, 'sso').flatMap((endpoint) => {
    const binding = requestBindings[endpoint.binding ?? samlBindings.httpRedirect];
    return binding === undefined ? [] : [{ url: endpoint.url, binding }];
  });
  const chosen = prefer === undefined ? usable[0] : usable.find((endpoint) => endpoint.binding === prefer);
  if (chosen !== undefined) return chosen;
  issues.push({
    code: 'sso_binding_not_in_node_saml',
    key: 'idp.single_sign_on_service.binding',
    message: `node-saml sends AuthnRequests by ${prefer ?? 'HTTP-Redirect or HTTP-POST'} only, and no IdP SSO endpoint (idp.single_sign_on_service.url or .N.url) has that binding`,
  });
  return { url: '', binding: 'HTTP-Redirect' };
}

function signingFields(properties: SamlProperties, issues: SamlIssue[]): Partial<NodeSamlConfig> {
  const key = properties['sp.privatekey'];
  const certificate = properties['sp.x509cert'];
  const signs =
    properties['security.authnrequest_signed'] === true ||
    properties['security.logoutrequest_signed'] === true ||
    properties['security.sign_metadata'] === true;
  const decrypts =
    properties['security.want_assertions_encrypted'] === true ||
    properties['security.want_nameid_encrypted'] === true;
  if ((signs || decrypts) && (!key || !certificate)) {
    issues.push({
      code: 'sp_cert_not_found_and_required',
      key: key ? 'sp.x509cert' : 'sp.privatekey',
      message: 'signing or decryption is enabled but sp.x509cert or sp.privatekey is not set',
    });
    return {};
  }
  return {
    ...(signs ? { privateKey: key, publicCert: certificate } : {}),
    ...(decrypts ? { decryptionPvk: key } : {}),
  };
}

function authnContextFields(properties: SamlProperties): Partial<NodeSamlConfig> {
  const context = properties['security.requested_authncontext'];
  if (context === undefined) return {};
  const classes = context.split(',').filter((item) => item !== '');
  return classes.length === 0 ? { disableRequestedAuthnContext: true } : { authnContext: classes };
}

/** Options of {@link toNodeSamlConfig}. */
export interface ToNodeSamlConfigOptions {
  /**
   * Which binding node-saml should send the AuthnRequest with; the endpoint with that binding is
   * taken from `idp.single_sign_on_service.url` or its alternatives.
   * @default the binding of the first usable SSO endpoint (the spec key first)
   */
  authnRequestBinding?: NodeSamlConfig['authnRequestBinding'];
}

/**
 * Turns a domain's effective properties (as `getProperties` answers them) into node-saml's settings:
 * every IdP certificate in `idpCert`, algorithm URIs as short names, binding URNs as node-saml's
 * names, the SP key only when something is to be signed or decrypted. Missing booleans are false and
 * missing algorithms sha256, as this package's defaults, not node-saml's.
 * @throws SamlConfigError `not_mappable` listing every problem in `details.errors`: a missing SP entity
 * ID, ACS URL or IdP certificate, an rsa-sha384 signature or sha384 digest (node-saml names neither),
 * no SSO endpoint with HTTP-Redirect or HTTP-POST, signing enabled without key and certificate
 */
export function toNodeSamlConfig(
  properties: SamlProperties,
  options: ToNodeSamlConfigOptions = {},
): NodeSamlConfig {
  const issues: SamlIssue[] = [];
  const issuer = required(properties, 'sp.entityid', issues);
  const callbackUrl = required(properties, 'sp.assertion_consumer_service.url', issues);
  const idpCert = idpCertificates(properties);
  if (idpCert.length === 0) required(properties, 'idp.x509cert', issues);
  const entry = chooseEntryPoint(properties, options.authnRequestBinding, issues);
  const signatureUri = properties['security.signature_algorithm'] ?? signatureAlgorithms.rsaSha256;
  const digestUri = properties['security.digest_algorithm'] ?? digestAlgorithms.sha256;
  const config: NodeSamlConfig = {
    issuer,
    callbackUrl,
    idpCert,
    entryPoint: entry.url,
    authnRequestBinding: entry.binding,
    identifierFormat: properties['sp.nameidformat'] ?? nameIdFormats.emailAddress,
    wantAssertionsSigned: properties['security.want_assertions_signed'] === true,
    wantAuthnResponseSigned: properties['security.want_messages_signed'] === true,
    signatureAlgorithm: shortName(signatureShortNames, 'security.signature_algorithm', signatureUri, issues),
    digestAlgorithm: shortName(digestShortNames, 'security.digest_algorithm', digestUri, issues),
    racComparison: (properties['security.requested_authncontextcomparison'] ??
      'exact') as NodeSamlConfig['racComparison'],
    signMetadata: properties['security.sign_metadata'] === true,
    ...signingFields(properties, issues),
    ...authnContextFields(properties),
  };
  optionalFields(properties, config);
  if (issues.length > 0) {
    throw new SamlConfigError('not_mappable', `cannot build node-saml settings: ${summarizeIssues(issues)}`, {
      details: { errors: issues },
    });
  }
  return config;
}

function optionalFields(properties: SamlProperties, config: NodeSamlConfig): void {
  const idpIssuer = properties['idp.entityid'];
  if (idpIssuer) config.idpIssuer = idpIssuer;
  const logout = endpoints(properties, 'slo').find(
    (endpoint) => (endpoint.binding ?? samlBindings.httpRedirect) === samlBindings.httpRedirect,
  );
  if (logout !== undefined) config.logoutUrl = logout.url;
  const logoutCallbackUrl = properties['sp.single_logout_service.url'];
  if (logoutCallbackUrl) config.logoutCallbackUrl = logoutCallbackUrl;
  const organization = metadataOrganization(properties);
  if (organization !== undefined) config.metadataOrganization = organization;
  const contacts = metadataContacts(properties);
  if (contacts.length > 0) config.metadataContactPerson = contacts;
}
