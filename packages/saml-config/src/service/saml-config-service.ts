import { SamlConfigError } from '../errors.js';
import { createHttpDocumentFetcher } from '../fetch/http-document-fetcher.js';
import { generateCertificate } from '../generate/generate-certificate.js';
import { type CertificateOptions, checkCertificateOptions } from '../generate/generate-parameters.js';
import { createDocumentReader } from '../import/document-reader.js';
import type { ReadDocument } from '../import/read-document.js';
import { signSpMetadata } from '../metadata/sign-metadata.js';
import { buildSpMetadata } from '../metadata/sp-metadata.js';
import { type DefaultsContext, effectiveProperties, pickProperties } from '../model/defaults.js';
import { normalizeDomain } from '../model/domain.js';
import { type SamlIssue, summarizeIssues, throwIfIssues } from '../model/issues.js';
import { parseProperties, parsePropertyKeyList, type SamlPropertyUpdate } from '../model/parse-properties.js';
import { type SamlProperties, samlPropertyKeys } from '../model/property-definitions.js';
import { parseOptions } from '../options.js';
import { type ValidationReport, validateProperties } from '../validation/validate-properties.js';
import { type SamlConfigServiceOptions, samlConfigServiceOptionsSchema } from './service-options.js';

/** Where an import or validation document comes from: the request body or a URL. */
export interface DocumentSource {
  /** A parsed JSON value, or JSON/XML text or bytes. */
  body?: unknown;
  /** Fetch the document from here instead. */
  url?: string | undefined;
  /** With `url`: accept plain http and unverifiable TLS for this one request. */
  allowUnsecure?: boolean | undefined;
  /** With IdP metadata describing several IdPs: the entityID to take. */
  entityId?: string | undefined;
}

/** What an import did. */
export interface ImportResult {
  format: ReadDocument['format'];
  /** The properties as stored afterwards (no defaults). */
  properties: SamlProperties;
  warnings: SamlIssue[];
}

/** A validation report plus the properties that were validated (defaults applied). */
export interface ValidationResult extends ValidationReport {
  properties: SamlProperties;
  /** One readable sentence summarising the errors, or `valid`. */
  summary: string;
}

/** What a certificate generation did. */
export interface GenerateResult {
  properties: SamlProperties;
  warnings: SamlIssue[];
}

/** The SAML configuration operations of the admin API, independent of HTTP. */
export interface SamlConfigService {
  /** Stored properties over defaults (or only stored ones with `raw`), optionally only `keys`. */
  getProperties(
    domain: string,
    options?: { keys?: string | undefined; raw?: boolean | undefined },
  ): Promise<SamlProperties>;
  /**
   * Sets the supplied properties (`null` or blank removes one); returns the stored map. HTTP layers
   * read a body with `parsePropertyUpdate`.
   * @throws SamlConfigError `invalid_domain`, `invalid_properties` (unknown keys, malformed values)
   */
  updateProperties(domain: string, update: SamlPropertyUpdate): Promise<SamlProperties>;
  /** Removes the listed keys (comma-delimited), or everything; returns the stored map. */
  deleteProperties(domain: string, options?: { keys?: string | undefined }): Promise<SamlProperties>;
  /** Imports a whole configuration or IdP metadata atomically; `validate` refuses an invalid result. */
  importProperties(
    domain: string,
    source: DocumentSource & { validate?: boolean | undefined },
  ): Promise<ImportResult>;
  /** Validates the domain's effective configuration. */
  validateDomain(domain: string): Promise<ValidationResult>;
  /** Validates a supplied or fetched document without storing anything. */
  validateDocument(source: DocumentSource): Promise<ValidationResult>;
  /**
   * Generates and stores a self-signed SP certificate and key (365 days, SHA-256, RSA 2048 unless
   * `options` says otherwise). HTTP layers read query strings with `parseGenerateParameters`.
   * @throws SamlConfigError `invalid_domain`, `invalid_parameters` naming the option
   */
  generateCertificate(domain: string, options?: CertificateOptions): Promise<GenerateResult>;
  /**
   * The SP metadata XML of the domain, signed with the SP key when `security.sign_metadata` is true;
   * when the key or certificate is missing or unusable it is unsigned with a `metadata_not_signed`
   * warning naming the property.
   */
  spMetadata(domain: string): Promise<{ xml: string; warnings: SamlIssue[] }>;
  /** Ends the thread that reads large documents (not the store, which the caller owns). Idempotent. */
  close(): Promise<void>;
}

/**
 * Creates the SAML configuration service. Documents over 64 KiB are read on a worker thread, so a
 * 1 MiB metadata import does not hold the caller's event loop; `close()` ends that thread.
 * @throws SamlConfigError `invalid_options`
 */
export function createSamlConfigService(options: SamlConfigServiceOptions): SamlConfigService {
  const resolved = parseOptions(samlConfigServiceOptionsSchema, options, 'createSamlConfigService');
  const fetcher = resolved.fetcher ?? createHttpDocumentFetcher();
  const reader = createDocumentReader();
  const context = (domain: string): DefaultsContext => ({
    domain,
    publicUrl: resolved.publicUrl,
    spEntityIdTemplate: resolved.spEntityIdTemplate,
    acsUrlTemplate: resolved.acsUrlTemplate,
  });
  const log = (fields: Record<string, unknown>, message: string) => resolved.logger?.info(fields, message);

  const load = async (source: DocumentSource): Promise<ReadDocument> => {
    const hasBody = source.body !== undefined && source.body !== null && source.body !== '';
    if (source.url !== undefined && source.url !== '') {
      if (hasBody)
        throw new SamlConfigError(
          'invalid_parameters',
          'expected either a document in the body or a url, not both',
        );
      const fetched = await fetcher.fetch({ url: source.url, allowUnsecure: source.allowUnsecure === true });
      return reader.read(fetched.body, {
        maxBytes: resolved.maxDocumentBytes,
        now: resolved.now(),
        entityId: source.entityId,
      });
    }
    if (!hasBody) {
      throw new SamlConfigError(
        'invalid_document',
        'expected a JSON or XML document in the body, or a url to fetch one from',
      );
    }
    return reader.read(source.body, {
      maxBytes: resolved.maxDocumentBytes,
      now: resolved.now(),
      entityId: source.entityId,
    });
  };

  const validate = (
    properties: SamlProperties,
    parseIssues: SamlIssue[],
    scope: 'all' | 'idp',
  ): ValidationResult => {
    const report = validateProperties(properties, {
      now: resolved.now(),
      expiryWarningDays: resolved.expiryWarningDays,
      parseIssues,
      scope,
    });
    return { ...report, properties, summary: report.ok ? 'valid' : summarizeIssues(report.errors) };
  };

  return {
    async getProperties(domain, query = {}) {
      const name = normalizeDomain(domain);
      const keys =
        query.keys === undefined || query.keys.trim() === '' ? undefined : parsePropertyKeyList(query.keys);
      const stored = await resolved.store.get(name);
      return pickProperties(query.raw === true ? stored : effectiveProperties(stored, context(name)), keys);
    },

    async updateProperties(domain, update) {
      const name = normalizeDomain(domain);
      const parsed = parseProperties(update ?? {});
      throwIfIssues(parsed.issues);
      const stored = await resolved.store.write(name, { set: parsed.properties, remove: parsed.blankKeys });
      log(
        { domain: name, set: Object.keys(parsed.properties), removed: parsed.blankKeys },
        'saml properties updated',
      );
      return stored;
    },

    async deleteProperties(domain, query = {}) {
      const name = normalizeDomain(domain);
      const keys =
        query.keys === undefined || query.keys.trim() === '' ? 'all' : parsePropertyKeyList(query.keys);
      const stored = await resolved.store.write(name, { remove: keys });
      log({ domain: name, removed: keys }, 'saml properties deleted');
      return stored;
    },

    async importProperties(domain, source) {
      const name = normalizeDomain(domain);
      const document = await load(source);
      throwIfIssues(document.parsed.issues);
      const replacesAll = document.replaces === samlPropertyKeys;
      const warnings = [...document.warnings];
      if (source.validate === true) {
        const current = replacesAll ? {} : await resolved.store.get(name);
        const next = { ...withoutKeys(current, document.replaces), ...document.parsed.properties };
        const result = validate(effectiveProperties(next, context(name)), [], 'all');
        if (!result.ok) {
          throw new SamlConfigError('validation_failed', result.summary, {
            details: { errors: result.errors, warnings: [...warnings, ...result.warnings] },
          });
        }
        warnings.push(...result.warnings);
      }
      const stored = await resolved.store.write(name, {
        remove: replacesAll ? 'all' : document.replaces,
        set: document.parsed.properties,
      });
      log(
        { domain: name, format: document.format, keys: Object.keys(document.parsed.properties) },
        'saml properties imported',
      );
      return { format: document.format, properties: stored, warnings };
    },

    async validateDomain(domain) {
      const name = normalizeDomain(domain);
      const stored = await resolved.store.get(name);
      const parsed = parseProperties(effectiveProperties(stored, context(name)));
      return validate(effectiveProperties(parsed.properties, context(name)), parsed.issues, 'all');
    },

    async validateDocument(source) {
      const document = await load(source);
      const withoutDomain: DefaultsContext = { ...context(''), publicUrl: undefined };
      const properties = effectiveProperties(document.parsed.properties, withoutDomain);
      const result = validate(properties, document.parsed.issues, scopeOf(document));
      return { ...result, warnings: [...document.warnings, ...result.warnings] };
    },

    async generateCertificate(domain, options = {}) {
      const name = normalizeDomain(domain);
      const checked = checkCertificateOptions(options);
      const generated = await generateCertificate(name, checked, resolved.now());
      const parsed = parseProperties({
        'sp.x509cert': generated.certificatePem,
        'sp.privatekey': generated.privateKeyPem,
      });
      throwIfIssues(parsed.issues);
      const stored = await resolved.store.write(name, { set: parsed.properties });
      const warnings: SamlIssue[] =
        checked.digest === 'SHA-1'
          ? [
              {
                code: 'cert_signed_with_sha1',
                key: 'sp.x509cert',
                message: 'the certificate is signed with SHA-1, which is deprecated',
              },
            ]
          : [];
      log(
        { domain: name, days: checked.days, digest: checked.digest, keyBits: checked.keyBits },
        'saml certificate generated',
      );
      return { properties: stored, warnings };
    },

    async spMetadata(domain) {
      const name = normalizeDomain(domain);
      const properties = effectiveProperties(await resolved.store.get(name), context(name));
      const xml = buildSpMetadata(properties, { now: resolved.now() });
      if (properties['security.sign_metadata'] !== true) return { xml, warnings: [] };
      const signed = signSpMetadata(xml, properties);
      if (signed.ok) return { xml: signed.xml, warnings: [] };
      log({ domain: name, reason: signed.warning.key }, 'saml metadata served unsigned');
      return { xml, warnings: [signed.warning] };
    },
    close: () => reader.close(),
  };
}

function scopeOf(document: ReadDocument): 'all' | 'idp' {
  return document.format === 'idp-metadata' ? 'idp' : 'all';
}

function withoutKeys(properties: SamlProperties, keys: readonly string[]): SamlProperties {
  const copy: Record<string, unknown> = { ...properties };
  for (const key of keys) delete copy[key];
  return copy as SamlProperties;
}
