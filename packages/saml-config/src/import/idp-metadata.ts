import { type CanonicalCertificate, readCertificate } from '../certificates/pem.js';
import { SamlConfigError } from '../errors.js';
import {
  type IdpAlternativeIndex,
  idpAlternativeKeys,
  MAX_IDP_ALTERNATIVES,
} from '../model/idp-alternatives.js';
import type { SamlIssue } from '../model/issues.js';
import { nameIdFormats, samlBindings } from '../model/property-definitions.js';
import type { XmlNode } from './xml-document.js';

/** What IdP metadata maps to, before the values are checked like any other input. */
export interface IdpMetadataMapping {
  values: Record<string, string | boolean>;
  warnings: SamlIssue[];
}

/** Options of {@link mapIdpMetadata}. */
export interface IdpMetadataOptions {
  now: Date;
  /** Which entity to take when the document describes several identity providers. */
  entityId?: string | undefined;
}

function asNodes(value: unknown): XmlNode[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.filter((item): item is XmlNode => typeof item === 'object' && item !== null);
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as XmlNode)['#text'] === 'string') {
    return (value as XmlNode)['#text'] as string;
  }
  return undefined;
}

function attribute(node: XmlNode, name: string): string | undefined {
  const value = node[`@_${name}`];
  return typeof value === 'string' ? value : undefined;
}

function collectEntities(node: XmlNode, now: Date): XmlNode[] {
  rejectExpired(node, now);
  const nested = asNodes(node.EntitiesDescriptor).flatMap((child) => collectEntities(child, now));
  return [...asNodes(node.EntityDescriptor), ...nested];
}

function rejectExpired(node: XmlNode, now: Date): void {
  const validUntil = attribute(node, 'validUntil');
  if (validUntil === undefined) return;
  const until = new Date(validUntil);
  if (Number.isNaN(until.getTime())) {
    throw new SamlConfigError(
      'invalid_metadata',
      `expected validUntil to be an xs:dateTime but received ${JSON.stringify(validUntil)}`,
    );
  }
  if (until < now) {
    throw new SamlConfigError(
      'invalid_metadata',
      `the metadata expired: validUntil ${until.toISOString()} is in the past`,
    );
  }
}

function selectEntity(root: XmlNode, rootName: string, options: IdpMetadataOptions): XmlNode {
  const entities = rootName === 'EntityDescriptor' ? [root] : collectEntities(root, options.now);
  const idps = entities.filter((entity) => asNodes(entity.IDPSSODescriptor).length > 0);
  for (const entity of idps) rejectExpired(entity, options.now);
  if (idps.length === 0) {
    throw new SamlConfigError(
      'invalid_metadata',
      'expected IdP metadata but no EntityDescriptor has an IDPSSODescriptor',
    );
  }
  const ids = idps.map((entity) => attribute(entity, 'entityID') ?? '');
  if (options.entityId !== undefined) {
    const chosen = idps.find((entity) => attribute(entity, 'entityID') === options.entityId);
    if (chosen === undefined) {
      throw new SamlConfigError(
        'invalid_metadata',
        `no identity provider with entityID ${JSON.stringify(options.entityId)} in the metadata`,
      );
    }
    return chosen;
  }
  const [only, ...others] = idps;
  if (only === undefined || others.length > 0) {
    throw new SamlConfigError(
      'invalid_metadata',
      `expected one identity provider but the metadata describes ${idps.length} (${ids.slice(0, 5).join(', ')}); choose one with entityId`,
      { details: { entityIds: ids } },
    );
  }
  return only;
}

/** The endpoint with HTTP-Redirect binding, else HTTP-POST, else the first one. */
function preferredEndpoint(endpoints: XmlNode[]): XmlNode | undefined {
  const withBinding = (binding: string) =>
    endpoints.find((endpoint) => attribute(endpoint, 'Binding') === binding);
  return withBinding(samlBindings.httpRedirect) ?? withBinding(samlBindings.httpPost) ?? endpoints[0];
}

function certificatesOf(descriptor: XmlNode, use: 'signing' | 'encryption'): string[] {
  return asNodes(descriptor.KeyDescriptor)
    .filter((keyDescriptor) => {
      const keyUse = attribute(keyDescriptor, 'use');
      return keyUse === undefined || keyUse === use;
    })
    .flatMap((keyDescriptor) => asNodes(keyDescriptor.KeyInfo))
    .flatMap((keyInfo) => asNodes(keyInfo.X509Data))
    .flatMap((data) => (Array.isArray(data.X509Certificate) ? data.X509Certificate : []))
    .map((value) => text(value))
    .filter((value): value is string => value !== undefined && value.trim() !== '');
}

/** The distinct readable certificates of `texts`, in document order. */
function distinctCertificates(texts: string[]): CanonicalCertificate[] {
  const byPem = new Map<string, CanonicalCertificate>();
  for (const value of texts) {
    const result = readCertificate(value);
    if (result.ok && !byPem.has(result.pem)) byPem.set(result.pem, result);
  }
  return [...byPem.values()];
}

function refusePastLimit(count: number, what: string): void {
  if (count > MAX_IDP_ALTERNATIVES) {
    throw new SamlConfigError(
      'invalid_metadata',
      `expected at most ${MAX_IDP_ALTERNATIVES + 1} ${what} (one chosen, ${MAX_IDP_ALTERNATIVES} alternatives) but the metadata lists ${count + 1}`,
    );
  }
}

/**
 * Keeps the currently valid certificate that lasts longest in `idp.x509cert` and every other distinct
 * one, in document order, in `idp.x509certMulti.signing.N`; a warning says which went where.
 */
function mapCertificates(
  texts: string[],
  now: Date,
  values: Record<string, string | boolean>,
  warnings: SamlIssue[],
): void {
  const parsed = distinctCertificates(texts);
  if (parsed.length === 0) {
    if (texts[0] !== undefined) values['idp.x509cert'] = texts[0];
    return;
  }
  const valid = parsed.filter(
    (item) => new Date(item.certificate.validFrom) <= now && new Date(item.certificate.validTo) >= now,
  );
  const pool = valid.length > 0 ? valid : parsed;
  const chosen = [...pool].sort(
    (a, b) => new Date(b.certificate.validTo).getTime() - new Date(a.certificate.validTo).getTime(),
  )[0] as CanonicalCertificate;
  values['idp.x509cert'] = chosen.pem;
  const others = parsed.filter((item) => item !== chosen);
  refusePastLimit(others.length, 'signing certificates');
  others.forEach((item, index) => {
    values[idpAlternativeKeys(index as IdpAlternativeIndex).certificate] = item.pem;
  });
  if (others.length > 0) {
    warnings.push({
      code: 'idp_cert_alternatives',
      key: 'idp.x509cert',
      message: `the metadata lists ${parsed.length} signing certificates; idp.x509cert holds the one valid until ${new Date(chosen.certificate.validTo).toISOString()}, idp.x509certMulti.signing.0 to .${others.length - 1} hold ${others.map((item) => item.certificate.fingerprint256).join(', ')}`,
    });
  }
}

/** The endpoints other than `chosen` that have both a Binding and a Location, without repeats. */
function otherEndpoints(endpoints: XmlNode[], chosen: XmlNode): XmlNode[] {
  const seen = new Set([`${attribute(chosen, 'Binding')} ${attribute(chosen, 'Location')}`]);
  return endpoints.filter((endpoint) => {
    const binding = attribute(endpoint, 'Binding');
    const location = attribute(endpoint, 'Location');
    const identity = `${binding} ${location}`;
    if (binding === undefined || location === undefined || seen.has(identity)) return false;
    seen.add(identity);
    return true;
  });
}

function mapEndpoints(descriptor: XmlNode, values: Record<string, string | boolean>): void {
  const ssoEndpoints = asNodes(descriptor.SingleSignOnService);
  const sso = preferredEndpoint(ssoEndpoints);
  if (sso === undefined || attribute(sso, 'Location') === undefined) {
    throw new SamlConfigError(
      'invalid_metadata',
      'expected the IDPSSODescriptor to have a SingleSignOnService with a Location',
    );
  }
  values['idp.single_sign_on_service.url'] = attribute(sso, 'Location') ?? '';
  values['idp.single_sign_on_service.binding'] = attribute(sso, 'Binding') ?? '';
  const otherSso = otherEndpoints(ssoEndpoints, sso);
  refusePastLimit(otherSso.length, 'SingleSignOnService endpoints');
  otherSso.forEach((endpoint, index) => {
    const keys = idpAlternativeKeys(index as IdpAlternativeIndex);
    values[keys.ssoUrl] = attribute(endpoint, 'Location') ?? '';
    values[keys.ssoBinding] = attribute(endpoint, 'Binding') ?? '';
  });
  const sloEndpoints = asNodes(descriptor.SingleLogoutService);
  const slo = preferredEndpoint(sloEndpoints);
  if (slo === undefined) return;
  values['idp.single_logout_service.url'] = attribute(slo, 'Location') ?? '';
  values['idp.single_logout_service.binding'] = attribute(slo, 'Binding') ?? '';
  const responseLocation = attribute(slo, 'ResponseLocation');
  if (responseLocation !== undefined) values['idp.single_logout_service.response.url'] = responseLocation;
  const otherSlo = otherEndpoints(sloEndpoints, slo);
  refusePastLimit(otherSlo.length, 'SingleLogoutService endpoints');
  otherSlo.forEach((endpoint, index) => {
    const keys = idpAlternativeKeys(index as IdpAlternativeIndex);
    values[keys.sloUrl] = attribute(endpoint, 'Location') ?? '';
    values[keys.sloBinding] = attribute(endpoint, 'Binding') ?? '';
    const response = attribute(endpoint, 'ResponseLocation');
    if (response !== undefined) values[keys.sloResponseUrl] = response;
  });
}

function mapNameIdFormat(
  descriptor: XmlNode,
  values: Record<string, string | boolean>,
  warnings: SamlIssue[],
): void {
  const formats = (Array.isArray(descriptor.NameIDFormat) ? descriptor.NameIDFormat : [])
    .map((value) => text(value)?.trim())
    .filter((value): value is string => value !== undefined && value !== '');
  if (formats.includes(nameIdFormats.emailAddress)) {
    values['sp.nameidformat'] = nameIdFormats.emailAddress;
  } else if (formats.length > 0) {
    warnings.push({
      code: 'nameidformat_not_offered',
      key: 'sp.nameidformat',
      message: `the IdP does not list the emailAddress NameID format (it lists ${formats.join(', ')}); sp.nameidformat was left unchanged`,
    });
  }
}

/**
 * Maps IdP metadata (reference §5): entityID, SSO and SLO endpoints (HTTP-Redirect preferred, then
 * HTTP-POST, in the spec keys; every other endpoint in `idp.single_sign_on_service.N.*` /
 * `idp.single_logout_service.N.*`), the signing certificates (a valid one lasting longest in
 * `idp.x509cert`, the others in `idp.x509certMulti.signing.N`), emailAddress NameID format when
 * offered, and `WantAuthnRequestsSigned`. Expired metadata and ambiguous documents are refused.
 * @throws SamlConfigError `invalid_metadata`, also when more than ten alternatives of one kind are listed
 */
export function mapIdpMetadata(
  root: XmlNode,
  rootName: string,
  options: IdpMetadataOptions,
): IdpMetadataMapping {
  const entity = selectEntity(root, rootName, options);
  const descriptor = asNodes(entity.IDPSSODescriptor)[0] as XmlNode;
  const values: Record<string, string | boolean> = Object.create(null);
  const warnings: SamlIssue[] = [];
  values['idp.entityid'] = attribute(entity, 'entityID') ?? '';
  mapEndpoints(descriptor, values);
  const signing = certificatesOf(descriptor, 'signing');
  mapCertificates(
    signing.length > 0 ? signing : certificatesOf(descriptor, 'encryption'),
    options.now,
    values,
    warnings,
  );
  mapNameIdFormat(descriptor, values, warnings);
  if (attribute(descriptor, 'WantAuthnRequestsSigned') === 'true')
    values['security.authnrequest_signed'] = true;
  return { values, warnings };
}
