import type { X509Certificate } from 'node:crypto';
import {
  type CertificateSummary,
  keyMatchesCertificate,
  summarizeCertificate,
} from '../certificates/inspect.js';
import { readCertificate, readPrivateKey } from '../certificates/pem.js';
import type { SamlIssue } from '../model/issues.js';
import type { SamlProperties } from '../model/property-definitions.js';

/** Findings about the SP and IdP certificates. */
export interface CertificateFindings {
  errors: SamlIssue[];
  warnings: SamlIssue[];
  certificates: { sp?: CertificateSummary; idp?: CertificateSummary };
}

/** Smallest RSA modulus considered safe for SAML signing today. */
const MIN_RSA_BITS = 2048;

function windowWarnings(
  side: 'sp' | 'idp',
  summary: CertificateSummary,
  now: Date,
  expiryWarningDays: number,
): SamlIssue[] {
  const key = `${side}.x509cert`;
  const label = side === 'sp' ? 'SP' : 'IdP';
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

function strengthWarnings(side: 'sp' | 'idp', summary: CertificateSummary): SamlIssue[] {
  const key = `${side}.x509cert`;
  const label = side === 'sp' ? 'SP' : 'IdP';
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

/**
 * Checks both certificates: validity window relative to `now`, expiry within `expiryWarningDays`,
 * RSA key size, SHA-1 signatures, and whether `sp.privatekey` belongs to `sp.x509cert`.
 */
export function checkCertificates(
  properties: SamlProperties,
  now: Date,
  expiryWarningDays: number,
): CertificateFindings {
  const findings: CertificateFindings = { errors: [], warnings: [], certificates: {} };
  const sides = [
    ['sp', parsed(properties['sp.x509cert'])],
    ['idp', parsed(properties['idp.x509cert'])],
  ] as const;
  for (const [side, certificate] of sides) {
    if (certificate === undefined) continue;
    const summary = summarizeCertificate(certificate, now);
    findings.certificates[side] = summary;
    findings.warnings.push(
      ...windowWarnings(side, summary, now, expiryWarningDays),
      ...strengthWarnings(side, summary),
    );
  }
  findings.errors.push(...spPairErrors(sides[0][1], properties['sp.privatekey']));
  return findings;
}
