import type { X509Certificate } from 'node:crypto';
import {
  type CertificateSummary,
  keyMatchesCertificate,
  summarizeCertificate,
} from '../certificates/inspect.js';
import { readCertificate, readPrivateKey } from '../certificates/pem.js';
import { idpAlternativeIndexes, idpAlternativeKeys } from '../model/idp-alternatives.js';
import type { SamlIssue } from '../model/issues.js';
import type { SamlProperties } from '../model/property-definitions.js';

/** Findings about the SP and IdP certificates. */
export interface CertificateFindings {
  errors: SamlIssue[];
  warnings: SamlIssue[];
  certificates: {
    sp?: CertificateSummary;
    idp?: CertificateSummary;
    /** The alternative IdP signing certificates, by property name (`idp.x509certMulti.signing.0`). */
    idpAlternatives?: Record<string, CertificateSummary>;
  };
}

/** Smallest RSA modulus considered safe for SAML signing today. */
const MIN_RSA_BITS = 2048;

/** Which certificate a finding is about: the code prefix, the property and the words naming it. */
interface CertificateSlot {
  side: 'sp' | 'idp';
  key: string;
  label: string;
}

function windowWarnings(
  { side, key, label }: CertificateSlot,
  summary: CertificateSummary,
  now: Date,
  expiryWarningDays: number,
): SamlIssue[] {
  if (new Date(summary.notBefore) > now) {
    return [
      {
        code: `${side}_cert_not_yet_valid`,
        key,
        message: `the ${label} certificate is valid only from ${summary.notBefore}`,
      },
    ];
  }
  if (new Date(summary.notAfter) < now) {
    return [
      {
        code: `${side}_cert_expired`,
        key,
        message: `the ${label} certificate expired on ${summary.notAfter}`,
      },
    ];
  }
  if (summary.daysRemaining < expiryWarningDays) {
    return [
      {
        code: `${side}_cert_expiring_soon`,
        key,
        message: `the ${label} certificate expires on ${summary.notAfter}, in ${summary.daysRemaining} days (warning below ${expiryWarningDays})`,
      },
    ];
  }
  return [];
}

function strengthWarnings({ side, key, label }: CertificateSlot, summary: CertificateSummary): SamlIssue[] {
  const warnings: SamlIssue[] = [];
  if (summary.publicKeyBits !== undefined && summary.publicKeyBits < MIN_RSA_BITS) {
    warnings.push({
      code: `${side}_key_too_small`,
      key,
      message: `expected an RSA key of at least ${MIN_RSA_BITS} bits but the ${label} key has ${summary.publicKeyBits}`,
    });
  }
  if (summary.signatureHash === 'SHA-1') {
    warnings.push({
      code: 'cert_signed_with_sha1',
      key,
      message: `the ${label} certificate is signed with SHA-1, which is deprecated`,
    });
  }
  return warnings;
}

function parsed(pem: string | undefined): X509Certificate | undefined {
  if (pem === undefined) return undefined;
  const result = readCertificate(pem);
  return result.ok ? result.certificate : undefined;
}

function spPairErrors(certificate: X509Certificate | undefined, keyPem: string | undefined): SamlIssue[] {
  if (certificate === undefined || keyPem === undefined) return [];
  const errors: SamlIssue[] = [];
  if (certificate.publicKey.asymmetricKeyType !== 'rsa') {
    errors.push({
      code: 'sp_cert_not_rsa',
      key: 'sp.x509cert',
      message: `expected an RSA SP certificate but its key is ${certificate.publicKey.asymmetricKeyType ?? 'unknown'}`,
    });
  }
  const key = readPrivateKey(keyPem);
  if (key.ok && !keyMatchesCertificate(certificate, key.key)) {
    errors.push({
      code: 'sp_cert_privatekey_mismatch',
      key: 'sp.privatekey',
      message: 'sp.privatekey is not the private key of sp.x509cert',
    });
  }
  return errors;
}

function slots(properties: SamlProperties): [CertificateSlot, string | undefined][] {
  const alternatives = idpAlternativeIndexes.map((index): [CertificateSlot, string | undefined] => {
    const key = idpAlternativeKeys(index).certificate;
    return [{ side: 'idp', key, label: `alternative IdP (${key})` }, properties[key]];
  });
  return [
    [{ side: 'sp', key: 'sp.x509cert', label: 'SP' }, properties['sp.x509cert']],
    [{ side: 'idp', key: 'idp.x509cert', label: 'IdP' }, properties['idp.x509cert']],
    ...alternatives,
  ];
}

function record(findings: CertificateFindings, slot: CertificateSlot, summary: CertificateSummary): void {
  if (slot.key === 'sp.x509cert') findings.certificates.sp = summary;
  else if (slot.key === 'idp.x509cert') findings.certificates.idp = summary;
  else
    findings.certificates.idpAlternatives = { ...findings.certificates.idpAlternatives, [slot.key]: summary };
}

/**
 * Checks every certificate (SP, IdP and the alternative IdP signing certificates): validity window
 * relative to `now`, expiry within `expiryWarningDays`, RSA key size, SHA-1 signatures, and whether
 * `sp.privatekey` belongs to `sp.x509cert`.
 */
export function checkCertificates(
  properties: SamlProperties,
  now: Date,
  expiryWarningDays: number,
): CertificateFindings {
  const findings: CertificateFindings = { errors: [], warnings: [], certificates: {} };
  for (const [slot, pem] of slots(properties)) {
    const certificate = parsed(pem);
    if (certificate === undefined) continue;
    const summary = summarizeCertificate(certificate, now);
    record(findings, slot, summary);
    findings.warnings.push(
      ...windowWarnings(slot, summary, now, expiryWarningDays),
      ...strengthWarnings(slot, summary),
    );
  }
  findings.errors.push(...spPairErrors(parsed(properties['sp.x509cert']), properties['sp.privatekey']));
  return findings;
}
