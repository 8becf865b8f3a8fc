import { SamlConfigError } from '../errors.js';
import { quoteValue } from '../model/issues.js';

/** Digests the generated certificate can be signed with. */
export type CertificateDigest = 'SHA-1' | 'SHA-256' | 'SHA-384' | 'SHA-512';

/** Checked parameters of certificate generation. */
export interface GenerateParameters {
  /** @default 365 */
  days: number;
  /** @default SHA-256 */
  digest: CertificateDigest;
  /** RSA modulus length. @default 2048 */
  keyBits: 2048 | 4096;
  country?: string;
  state?: string;
  location?: string;
  organization?: string;
  organizationalUnit?: string;
}

/**
 * Longest validity accepted: ten years. Self-signed SAML signing certificates are rotated by
 * regenerating; a longer life only hides a key nobody will remember to replace.
 */
export const MAX_CERTIFICATE_DAYS = 3650;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** Longest value of each subject field of a generated certificate, in characters (after trimming). */
export const SUBJECT_FIELD_LENGTHS = {
  organization: 64,
  organizationalUnit: 64,
  state: 128,
  location: 128,
} as const;
const SUBJECT_FIELDS = SUBJECT_FIELD_LENGTHS;
/**
 * What a subject field's value must look like, as a pattern for API documents: no control character
 * and at least one character that is not white space (values are trimmed, and empty is refused).
 */
export const SUBJECT_TEXT_PATTERN =
  '^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\s\\u0000-\\u001f\\u007f-\\u009f][^\\u0000-\\u001f\\u007f-\\u009f]*$';
const DIGESTS: Record<string, CertificateDigest> = {
  SHA1: 'SHA-1',
  SHA256: 'SHA-256',
  SHA384: 'SHA-384',
  SHA512: 'SHA-512',
};
const ENCRYPTIONS: Record<string, 2048 | 4096> = { RSA: 2048, 'RSA:2048': 2048, 'RSA:4096': 4096 };
const KNOWN = new Set(['days', 'digest', 'encryption', 'country', ...Object.keys(SUBJECT_FIELDS)]);

function refuse(name: string, expected: string, value: unknown): never {
  throw new SamlConfigError(
    'invalid_parameters',
    `${name}: expected ${expected} but received ${quoteValue(value)}`,
    {
      details: { parameter: name },
    },
  );
}

function single(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return String(value);
  if (typeof value !== 'string')
    return refuse(name, 'a single value', Array.isArray(value) ? 'several values' : value);
  return value.trim();
}

function readDays(value: string | undefined): number {
  if (value === undefined || value === '') return 365;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_CERTIFICATE_DAYS) {
    return refuse('days', `a whole number of days from 1 to ${MAX_CERTIFICATE_DAYS}`, value);
  }
  return Number(value);
}

function readSubjectField(name: keyof typeof SUBJECT_FIELDS, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const max = SUBJECT_FIELDS[name];
  if (value === '' || value.length > max || CONTROL.test(value)) {
    return refuse(name, `1 to ${max} characters without control characters`, value);
  }
  return value;
}

/**
 * Checks the query parameters of `POST /saml-generate/{domain}`: `days` (1..3650, default 365),
 * `digest` (SHA1, SHA256 default, SHA384, SHA512; dashes and case ignored), `encryption` (RSA =
 * RSA:2048 default, RSA:4096), `country` (two letters), `state`, `location`, `organization`,
 * `organizationalUnit` (plain text, any characters but control characters: commas, `+` and `=`
 * stay inside their own attribute because the subject is built structurally).
 * @throws SamlConfigError `invalid_parameters` naming the parameter
 */
export function parseGenerateParameters(query: Readonly<Record<string, unknown>>): GenerateParameters {
  const unknown = Object.keys(query).find((name) => !KNOWN.has(name));
  if (unknown !== undefined) {
    return refuse(unknown, `no such parameter (known: ${[...KNOWN].join(', ')})`, query[unknown]);
  }
  const digestText = single('digest', query.digest)?.toUpperCase().replaceAll('-', '') || 'SHA256';
  const digest = DIGESTS[digestText] ?? refuse('digest', 'SHA1, SHA256, SHA384 or SHA512', query.digest);
  const encryptionText =
    single('encryption', query.encryption)?.toUpperCase().replace(/^RSA-/, 'RSA:') || 'RSA:2048';
  const keyBits =
    ENCRYPTIONS[encryptionText] ?? refuse('encryption', 'RSA, RSA:2048 or RSA:4096', query.encryption);
  const parameters: GenerateParameters = { days: readDays(single('days', query.days)), digest, keyBits };
  const country = single('country', query.country);
  if (country !== undefined) {
    if (!/^[A-Za-z]{2}$/.test(country)) refuse('country', 'a two-letter country code such as IT', country);
    parameters.country = country.toUpperCase();
  }
  for (const name of Object.keys(SUBJECT_FIELDS) as (keyof typeof SUBJECT_FIELDS)[]) {
    const value = readSubjectField(name, single(name, query[name]));
    if (value !== undefined) parameters[name] = value;
  }
  return parameters;
}

/**
 * Options of `SamlConfigService.generateCertificate`: any of {@link GenerateParameters}, each with
 * its default (365 days, SHA-256, 2048-bit RSA, subject CN only).
 */
export type CertificateOptions = Partial<GenerateParameters>;

const OPTION_NAMES: readonly (keyof GenerateParameters)[] = [
  'days',
  'digest',
  'keyBits',
  'country',
  ...(Object.keys(SUBJECT_FIELDS) as (keyof typeof SUBJECT_FIELDS)[]),
];
const DIGEST_NAMES: readonly CertificateDigest[] = ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512'];

/**
 * Checks typed certificate options (the library form of {@link parseGenerateParameters}, which reads
 * query strings) and fills the defaults.
 * @throws SamlConfigError `invalid_parameters` naming the option (an unknown one too)
 */
export function checkCertificateOptions(options: CertificateOptions = {}): GenerateParameters {
  const unknown = Object.keys(options).find(
    (name) => !OPTION_NAMES.includes(name as keyof GenerateParameters),
  );
  if (unknown !== undefined) {
    return refuse(
      unknown,
      `no such option (known: ${OPTION_NAMES.join(', ')})`,
      (options as Record<string, unknown>)[unknown],
    );
  }
  const days = options.days ?? 365;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > MAX_CERTIFICATE_DAYS) {
    refuse('days', `a whole number of days from 1 to ${MAX_CERTIFICATE_DAYS}`, days);
  }
  const digest = options.digest ?? 'SHA-256';
  if (!DIGEST_NAMES.includes(digest)) refuse('digest', DIGEST_NAMES.join(', '), digest);
  const keyBits = options.keyBits ?? 2048;
  if (keyBits !== 2048 && keyBits !== 4096) refuse('keyBits', '2048 or 4096', keyBits);
  const parameters: GenerateParameters = { days, digest, keyBits };
  if (options.country !== undefined) {
    if (typeof options.country !== 'string' || !/^[A-Za-z]{2}$/.test(options.country)) {
      refuse('country', 'a two-letter country code such as IT', options.country);
    }
    parameters.country = options.country.toUpperCase();
  }
  for (const name of Object.keys(SUBJECT_FIELDS) as (keyof typeof SUBJECT_FIELDS)[]) {
    const value = options[name];
    if (value !== undefined && typeof value !== 'string') refuse(name, 'text', value);
    const checked = readSubjectField(name, value);
    if (checked !== undefined) parameters[name] = checked;
  }
  return parameters;
}
