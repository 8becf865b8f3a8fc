import { z } from 'zod';
import type { DocumentFetcher } from '../fetch/document-fetcher.js';
import { defaultAcsUrlTemplate, defaultSpEntityIdTemplate } from '../model/defaults.js';
import type { SamlPropertyStore } from '../store/property-store.js';

/** Receives the service's audit events. Fields never contain property values or key material. */
export interface SamlConfigLogger {
  info(fields: Record<string, unknown>, message: string): void;
}

/** Options of {@link createSamlConfigService}. */
export const samlConfigServiceOptionsSchema = z.strictObject({
  /** Where properties live. */
  store: z.custom<SamlPropertyStore>(
    (value) =>
      typeof value === 'object' && value !== null && typeof (value as SamlPropertyStore).write === 'function',
    'expected a SamlPropertyStore',
  ),
  /**
   * Fetches documents for `url` imports and validations.
   * @default createHttpDocumentFetcher() (https only, public addresses only, 1 MiB, 10 s)
   */
  fetcher: z
    .custom<DocumentFetcher>(
      (value) =>
        typeof value === 'object' && value !== null && typeof (value as DocumentFetcher).fetch === 'function',
      'expected a DocumentFetcher',
    )
    .optional(),
  /** Public base URL of the service, used to derive the default SP entity ID and ACS URL. */
  publicUrl: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * Template of the default `sp.entityid` (`{publicUrl}`, `{domain}`).
   * @default "{publicUrl}/zx/auth/samlMetadata?domain={domain}"
   */
  spEntityIdTemplate: z.string().min(1).default(defaultSpEntityIdTemplate),
  /**
   * Template of the default ACS URL (`{publicUrl}`, `{domain}`).
   * @default "{publicUrl}/zx/auth/saml"
   */
  acsUrlTemplate: z.string().min(1).default(defaultAcsUrlTemplate),
  /**
   * Largest import or validation document in bytes: a single IdP's metadata or a full property set
   * is a few KB; 1 MiB bounds memory and parse time without refusing real documents.
   * @default 1048576
   */
  maxDocumentBytes: z.number().int().positive().default(1_048_576),
  /**
   * Certificates expiring in fewer days than this get an `*_cert_expiring_soon` warning: 30 days is
   * enough to exchange metadata with an IdP administrator.
   * @default 30
   */
  expiryWarningDays: z.number().int().min(0).default(30),
  /**
   * The clock used for certificate validity and generation.
   * @default () => new Date()
   */
  now: z.custom<() => Date>((value) => typeof value === 'function').default(() => () => new Date()),
  /** Audit events (what changed, never values). @default none */
  logger: z.custom<SamlConfigLogger>((value) => typeof value === 'object' && value !== null).optional(),
});

/** Input of {@link createSamlConfigService}. */
export type SamlConfigServiceOptions = z.input<typeof samlConfigServiceOptionsSchema>;

/** Fully defaulted options. */
export type ResolvedSamlConfigServiceOptions = z.output<typeof samlConfigServiceOptionsSchema>;
