import type { SamlIssue } from '../model/issues.js';
import {
  digestAlgorithms,
  nameIdFormats,
  type SamlBooleanPropertyKey,
  type SamlProperties,
  samlBindings,
  signatureAlgorithms,
} from '../model/property-definitions.js';
import { alternativeEndpointErrors, alternativeUrlWarnings } from './alternative-checks.js';
import { type CertificateFindings, checkCertificates } from './certificate-checks.js';

/** The outcome of validating a configuration. */
export interface ValidationReport {
  /** True when there are no errors (warnings allowed). */
  ok: boolean;
  /** Problems that make the configuration unusable, java-saml's codes first. */
  errors: SamlIssue[];
  /** Risky but usable settings (expiring certificates, SHA-1, plain http, ...). */
  warnings: SamlIssue[];
  /** Facts about the SP, IdP and alternative IdP certificates, including when each expires. */
  certificates: CertificateFindings['certificates'];
}

/** Options of {@link validateProperties}. */
export interface ValidateOptions {
  /** The instant certificate validity is judged at. */
  now: Date;
  /** Certificates expiring in fewer days than this get an `*_cert_expiring_soon` warning. */
  expiryWarningDays: number;
  /** Issues already found while reading the document (unknown keys, malformed values). */
  parseIssues?: readonly SamlIssue[];
  /**
   * `idp` checks only the identity-provider side (for IdP metadata documents, which carry no SP data).
   * @default "all"
   */
  scope?: 'all' | 'idp';
}

const SP_CERT_FLAGS: readonly SamlBooleanPropertyKey[] = [
  'security.authnrequest_signed',
  'security.logoutrequest_signed',
  'security.logoutresponse_signed',
  'security.want_assertions_encrypted',
  'security.want_nameid_encrypted',
  'security.sign_metadata',
];

const URL_KEYS = [
  'sp.assertion_consumer_service.url',
  'sp.single_logout_service.url',
  'idp.single_sign_on_service.url',
  'idp.single_logout_service.url',
  'idp.single_logout_service.response.url',
] as const;

function missing(properties: SamlProperties, key: keyof SamlProperties): boolean {
  const value = properties[key];
  return value === undefined || value === '';
}

function spErrors(properties: SamlProperties): SamlIssue[] {
  const errors: SamlIssue[] = [];
  if (missing(properties, 'sp.entityid')) {
    errors.push({ code: 'sp_entityId_not_found', key: 'sp.entityid', message: 'sp.entityid is required' });
  }
  if (missing(properties, 'sp.assertion_consumer_service.url')) {
    errors.push({
      code: 'sp_acs_not_found',
      key: 'sp.assertion_consumer_service.url',
      message: 'sp.assertion_consumer_service.url is required',
    });
  }
  const flags = SP_CERT_FLAGS.filter((flag) => properties[flag] === true);
  if (flags.length > 0 && (missing(properties, 'sp.x509cert') || missing(properties, 'sp.privatekey'))) {
    errors.push({
      code: 'sp_cert_not_found_and_required',
      message: `${flags.join(', ')} ${flags.length === 1 ? 'needs' : 'need'} both sp.x509cert and sp.privatekey (POST /saml-generate creates them)`,
    });
  }
  const organization = ['organization.name', 'organization.displayname', 'organization.url'] as const;
  const present = organization.filter((key) => !missing(properties, key));
  if (present.length > 0 && present.length < organization.length) {
    errors.push({
      code: 'organization_not_enough_data',
      message: `an organization needs name, displayname and url; missing ${organization.filter((key) => missing(properties, key)).join(', ')}`,
    });
  }
  return errors;
}

function idpErrors(properties: SamlProperties): SamlIssue[] {
  const errors: SamlIssue[] = [];
  if (missing(properties, 'idp.entityid')) {
    errors.push({ code: 'idp_entityId_not_found', key: 'idp.entityid', message: 'idp.entityid is required' });
  }
  if (missing(properties, 'idp.single_sign_on_service.url')) {
    errors.push({
      code: 'idp_sso_url_invalid',
      key: 'idp.single_sign_on_service.url',
      message: 'idp.single_sign_on_service.url is required',
    });
  }
  if (missing(properties, 'idp.x509cert')) {
    errors.push({
      code: 'idp_cert_or_fingerprint_not_found_and_required',
      key: 'idp.x509cert',
      message: 'idp.x509cert is required to verify the identity provider’s signatures',
    });
    if (properties['security.nameid_encrypted'] === true) {
      errors.push({
        code: 'idp_cert_not_found_and_required',
        key: 'idp.x509cert',
        message: 'security.nameid_encrypted needs idp.x509cert to encrypt the NameID',
      });
    }
  }
  return errors;
}

function spPairWarning(properties: SamlProperties): SamlIssue[] {
  const hasCert = !missing(properties, 'sp.x509cert');
  const hasKey = !missing(properties, 'sp.privatekey');
  if (hasCert === hasKey) return [];
  return [
    {
      code: 'sp_cert_privatekey_incomplete',
      key: hasCert ? 'sp.privatekey' : 'sp.x509cert',
      message: `${hasCert ? 'sp.x509cert is set without sp.privatekey' : 'sp.privatekey is set without sp.x509cert'}; signing needs both`,
    },
  ];
}

function settingWarnings(properties: SamlProperties): SamlIssue[] {
  const warnings: SamlIssue[] = [];
  const warn = (code: string, key: string | undefined, message: string) =>
    warnings.push(key === undefined ? { code, message } : { code, key, message });
  if (properties['security.signature_algorithm'] === signatureAlgorithms.rsaSha1) {
    warn(
      'signature_algorithm_deprecated',
      'security.signature_algorithm',
      'rsa-sha1 is deprecated; use rsa-sha256',
    );
  }
  if (properties['security.digest_algorithm'] === digestAlgorithms.sha1) {
    warn(
      'digest_algorithm_deprecated',
      'security.digest_algorithm',
      'sha1 digests are deprecated; use sha256',
    );
  }
  for (const key of URL_KEYS) {
    const value = properties[key];
    if (typeof value === 'string' && value.startsWith('http://'))
      warn('insecure_url', key, `${key} uses plain http`);
  }
  if (
    properties['security.want_messages_signed'] !== true &&
    properties['security.want_assertions_signed'] !== true
  ) {
    warn(
      'no_signature_required',
      undefined,
      'neither want_messages_signed nor want_assertions_signed is true; java-saml still demands one signature, other stacks may not',
    );
  }
  const nameIdFormat = properties['sp.nameidformat'];
  if (nameIdFormat !== undefined && nameIdFormat !== nameIdFormats.emailAddress) {
    warn(
      'nameidformat_not_email',
      'sp.nameidformat',
      'login maps the NameID to the primary e-mail address; emailAddress is expected',
    );
  }
  const acsBinding = properties['sp.assertion_consumer_service.binding'];
  if (acsBinding !== undefined && acsBinding !== samlBindings.httpPost) {
    warn(
      'acs_binding_unsupported',
      'sp.assertion_consumer_service.binding',
      'only HTTP-POST is supported for the ACS',
    );
  }
  const ssoBinding = properties['idp.single_sign_on_service.binding'];
  if (ssoBinding !== undefined && ssoBinding !== samlBindings.httpRedirect) {
    warn(
      'sso_binding_unsupported',
      'idp.single_sign_on_service.binding',
      'only HTTP-Redirect is sent to the IdP',
    );
  }
  return warnings;
}

/**
 * Validates a configuration (normally the stored values overlaid on the defaults): java-saml's
 * `checkSettings` codes (SP checks, then IdP checks), malformed values, certificate checks (parse,
 * validity window, expiring soon, key matches certificate, key size, SHA-1) and risky settings.
 */
export function validateProperties(properties: SamlProperties, options: ValidateOptions): ValidationReport {
  const certificates = checkCertificates(properties, options.now, options.expiryWarningDays);
  const spSide = options.scope !== 'idp';
  const errors = [
    ...(options.parseIssues ?? []),
    ...(spSide ? spErrors(properties) : []),
    ...idpErrors(properties),
    ...alternativeEndpointErrors(properties),
    ...certificates.errors,
  ];
  const warnings = [
    ...(spSide ? spPairWarning(properties) : []),
    ...settingWarnings(properties),
    ...alternativeUrlWarnings(properties),
    ...certificates.warnings,
  ];
  return { ok: errors.length === 0, errors, warnings, certificates: certificates.certificates };
}
