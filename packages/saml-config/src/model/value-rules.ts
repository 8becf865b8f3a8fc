import { readCertificate, readPrivateKey } from '../certificates/pem.js';
import { quoteValue } from './issues.js';
import {
  authnContextComparisons,
  digestAlgorithms,
  nameIdFormats,
  type SamlPropertyKind,
  samlBindings,
  signatureAlgorithms,
} from './property-definitions.js';

/** The outcome of checking one non-blank string value. */
export type ValueRuleResult = { ok: true; value: string } | { ok: false; message: string; code?: string };

const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/;
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;
const EMAIL =
  /^[^\s@<>"(),;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;
// Control characters (NUL among them: PostgreSQL text cannot hold it) and unpaired surrogates (UTF-8
// cannot encode them; they would be stored as U+FFFD).
const CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  /[\u0000-\u001f\u007f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Longest entity ID the SAML metadata schema allows. */
const MAX_ENTITY_ID = 1024;
/** Long enough for any real endpoint URL with query string, short enough to keep rows small. */
const MAX_URL = 2048;
/** Names, display names and URIs lists are short in practice; this bounds stored rows. */
const MAX_TEXT = 1024;
/** An RSA-8192 PKCS#1 key PEM is about 6.5 KB; 64 KiB leaves room for any real certificate. */
const MAX_PEM = 65_536;

const bindingValues: readonly string[] = Object.values(samlBindings);
const nameIdValues: readonly string[] = Object.values(nameIdFormats);
const signatureValues: readonly string[] = Object.values(signatureAlgorithms);
const digestValues: readonly string[] = Object.values(digestAlgorithms);

function tooLong(value: string, max: number): ValueRuleResult | undefined {
  return value.length > max
    ? { ok: false, message: `expected at most ${max} characters but received ${value.length}` }
    : undefined;
}

function checkUrl(value: string): ValueRuleResult {
  const long = tooLong(value, MAX_URL);
  if (long) return long;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, message: `expected an absolute http(s) URL but received ${quoteValue(value)}` };
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '' || /\s/.test(value)) {
    return { ok: false, message: `expected an absolute http(s) URL but received ${quoteValue(value)}` };
  }
  return { ok: true, value };
}

function checkOneOf(value: string, allowed: readonly string[], what: string): ValueRuleResult {
  return allowed.includes(value)
    ? { ok: true, value }
    : {
        ok: false,
        message: `expected ${what} (one of ${allowed.join(', ')}) but received ${quoteValue(value)}`,
      };
}

function checkAuthnContext(value: string): ValueRuleResult {
  const long = tooLong(value, MAX_TEXT);
  if (long) return long;
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const bad = items.find((item) => !ABSOLUTE_URI.test(item));
  if (bad !== undefined) {
    return {
      ok: false,
      message: `expected a comma-separated list of absolute URIs but received ${quoteValue(bad)}`,
    };
  }
  return { ok: true, value: items.join(',') };
}

function checkSignatureAlgorithm(value: string): ValueRuleResult {
  if (value === 'http://www.w3.org/2000/09/xmldsig#dsa-sha1') {
    return {
      ok: false,
      message: 'DSA signatures are not supported: the SP key is RSA; use an rsa-sha256 URI',
    };
  }
  return checkOneOf(value, signatureValues, 'an RSA XML signature algorithm URI');
}

function checkDigestAlgorithm(value: string): ValueRuleResult {
  if (signatureValues.includes(value)) {
    return {
      ok: false,
      message: `expected a digest algorithm URI (one of ${digestValues.join(', ')}) but received the signature algorithm ${quoteValue(value)}; signature algorithms belong in security.signature_algorithm`,
    };
  }
  return checkOneOf(value, digestValues, 'an XML digest algorithm URI');
}

function checkText(value: string, max: number, what: string, pattern?: RegExp): ValueRuleResult {
  const long = tooLong(value, max);
  if (long) return long;
  if (CONTROL.test(value) || (pattern !== undefined && !pattern.test(value))) {
    return { ok: false, message: `expected ${what} but received ${quoteValue(value)}` };
  }
  return { ok: true, value };
}

function checkPem(kind: 'certificate' | 'private-key', value: string): ValueRuleResult {
  const long = tooLong(value, MAX_PEM);
  if (long) return long;
  if (kind === 'certificate') {
    const result = readCertificate(value);
    return result.ok ? { ok: true, value: result.pem } : { ok: false, message: result.message };
  }
  const result = readPrivateKey(value);
  if (result.ok) return { ok: true, value: result.pem };
  const code = result.reason === 'invalid' ? undefined : `sp_privatekey_${result.reason}`;
  return code === undefined
    ? { ok: false, message: result.message }
    : { ok: false, message: result.message, code };
}

/**
 * Checks and normalises one trimmed, non-blank string value of a property of kind `kind`:
 * certificates become canonical PEM, PKCS#1 keys become PKCS#8, authn context lists lose blanks.
 */
export function checkStringValue(kind: Exclude<SamlPropertyKind, 'boolean'>, value: string): ValueRuleResult {
  switch (kind) {
    case 'entity-id':
      return (
        tooLong(value, MAX_ENTITY_ID) ?? checkText(value, MAX_ENTITY_ID, 'an absolute URI', ABSOLUTE_URI)
      );
    case 'url':
      return checkUrl(value);
    case 'binding':
      return checkOneOf(value, bindingValues, 'a SAML 2.0 binding URN');
    case 'nameid-format':
      return checkOneOf(value, nameIdValues, 'a NameID format URN');
    case 'certificate':
    case 'private-key':
      return checkPem(kind, value);
    case 'authn-context':
      return checkAuthnContext(value);
    case 'authn-comparison':
      return checkOneOf(value.toLowerCase(), authnContextComparisons, 'a comparison method');
    case 'signature-algorithm':
      return checkSignatureAlgorithm(value);
    case 'digest-algorithm':
      return checkDigestAlgorithm(value);
    case 'text':
      return checkText(value, MAX_TEXT, 'text without control characters');
    case 'language':
      return checkText(value, 35, 'a language tag such as en or pt-BR', LANGUAGE_TAG);
    case 'email':
      return checkText(value, 254, 'an e-mail address', EMAIL);
  }
}
