import { SamlConfigError } from '../errors.js';
import { describeIndexPastLimit } from './idp-alternatives.js';
import { quoteValue, type SamlIssue, throwIfIssues } from './issues.js';
import {
  isSamlPropertyKey,
  propertyKind,
  type SamlBooleanPropertyKey,
  type SamlProperties,
  type SamlPropertyKey,
  samlPropertyDefinitions,
} from './property-definitions.js';
import { checkStringValue } from './value-rules.js';

/** The result of reading an untrusted property map. */
export interface ParsedProperties {
  /** The well-formed values, normalised (trimmed strings, JSON booleans, canonical PEM, PKCS#8). */
  properties: SamlProperties;
  /** Keys given as `null` or a blank string: java-saml treats them as absent. */
  blankKeys: SamlPropertyKey[];
  /** One entry per unknown key or malformed value; empty when everything was well-formed. */
  issues: SamlIssue[];
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Reads a boolean given as a JSON boolean or the string true/false (any case). */
function readBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  return text === 'true' ? true : text === 'false' ? false : undefined;
}

function unknownKeyIssue(key: string): SamlIssue {
  const pastLimit = describeIndexPastLimit(key);
  if (pastLimit !== undefined) return { code: 'too_many_alternatives', key, message: pastLimit };
  return {
    code: 'unknown_key',
    key,
    message: `unknown property ${JSON.stringify(key)}; expected a SAML property name such as sp.entityid or idp.x509cert`,
  };
}

/**
 * Unknown keys listed one by one in the issues of a map; past them one issue counts the rest. A
 * document of thousands of unknown keys (1 MiB holds about 25 000) would otherwise answer a
 * megabytes-long error whose building and serialising hold the event loop, and tell no one more.
 */
const MAX_LISTED_UNKNOWN_KEYS = 100;

function unlistedKeysIssue(count: number): SamlIssue {
  return {
    code: 'unknown_key',
    message: `and ${count} more unknown properties, not listed`,
  };
}

type ValueOutcome =
  | { kind: 'set'; value: string | boolean }
  | { kind: 'blank' }
  | { kind: 'issue'; issue: SamlIssue };

function readValue(key: SamlPropertyKey, raw: unknown): ValueOutcome {
  const kind = propertyKind(key);
  const { invalidCode } = samlPropertyDefinitions[key];
  if (raw === null || (typeof raw === 'string' && raw.trim() === '')) {
    return kind === 'authn-context' ? { kind: 'set', value: '' } : { kind: 'blank' };
  }
  if (kind === 'boolean') {
    const value = readBoolean(raw);
    if (value !== undefined) return { kind: 'set', value };
    const received = typeof raw === 'string' ? quoteValue(raw) : describeType(raw);
    return {
      kind: 'issue',
      issue: { code: invalidCode, key, message: `expected true or false but received ${received}` },
    };
  }
  if (typeof raw !== 'string') {
    return {
      kind: 'issue',
      issue: { code: invalidCode, key, message: `expected a string but received ${describeType(raw)}` },
    };
  }
  const result = checkStringValue(kind, raw.trim());
  if (result.ok) return { kind: 'set', value: result.value };
  return { kind: 'issue', issue: { code: result.code ?? invalidCode, key, message: result.message } };
}

/**
 * Reads an untrusted flat property map (a parsed JSON body or SAMLProperties XML). Unknown keys
 * (including `__proto__` and `constructor`; `too_many_alternatives` for an indexed IdP key past
 * index 9) and malformed values become issues; nothing is thrown
 * for them, so validation can report every problem at once. Past 100 unknown keys, one last
 * `unknown_key` issue without a key counts the others.
 * @throws SamlConfigError `invalid_properties` when `input` is not an object
 */
export function parseProperties(input: unknown): ParsedProperties {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new SamlConfigError(
      'invalid_properties',
      `expected a JSON object of SAML properties but received ${describeType(input)}`,
    );
  }
  const properties: Record<string, string | boolean> = Object.create(null);
  const blankKeys: SamlPropertyKey[] = [];
  const issues: SamlIssue[] = [];
  let unknownKeys = 0;
  for (const key of Object.keys(input)) {
    if (!isSamlPropertyKey(key)) {
      unknownKeys += 1;
      if (unknownKeys <= MAX_LISTED_UNKNOWN_KEYS) issues.push(unknownKeyIssue(key));
      continue;
    }
    const outcome = readValue(key, (input as Record<string, unknown>)[key]);
    if (outcome.kind === 'set') properties[key] = outcome.value;
    else if (outcome.kind === 'blank') blankKeys.push(key);
    else issues.push(outcome.issue);
  }
  if (unknownKeys > MAX_LISTED_UNKNOWN_KEYS)
    issues.push(unlistedKeysIssue(unknownKeys - MAX_LISTED_UNKNOWN_KEYS));
  return { properties: { ...properties } as SamlProperties, blankKeys, issues };
}

/**
 * Reads a comma-delimited list of property names (the `keys` query parameter).
 * @throws SamlConfigError `invalid_parameters` naming the first unknown key
 */
export function parsePropertyKeyList(list: string): SamlPropertyKey[] {
  const keys = list
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');
  const unknown = keys.find((key) => !isSamlPropertyKey(key));
  if (unknown !== undefined) {
    throw new SamlConfigError('invalid_parameters', unknownKeyIssue(unknown).message, {
      details: { errors: [unknownKeyIssue(unknown)] },
    });
  }
  return [...new Set(keys)] as SamlPropertyKey[];
}

/**
 * What `SamlConfigService.updateProperties` takes: any properties, booleans as booleans and the rest
 * as strings; `null` (or a blank string) removes one.
 */
export type SamlPropertyUpdate = {
  [K in SamlPropertyKey]?: (K extends SamlBooleanPropertyKey ? boolean : string) | null;
};

/**
 * Reads an untrusted property map (an HTTP body) into a {@link SamlPropertyUpdate}: unknown keys
 * and malformed values refused, values normalised as {@link parseProperties} does, blank ones `null`.
 * @throws SamlConfigError `invalid_properties` with every issue in `details.errors`
 */
export function parsePropertyUpdate(body: unknown): SamlPropertyUpdate {
  const parsed = parseProperties(body ?? {});
  throwIfIssues(parsed.issues);
  const update: Record<string, unknown> = { ...parsed.properties };
  for (const key of parsed.blankKeys) update[key] = null;
  return update as SamlPropertyUpdate;
}
