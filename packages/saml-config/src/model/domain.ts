import { domainToASCII } from 'node:url';
import { SamlConfigError } from '../errors.js';
import { quoteValue } from './issues.js';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Longest domain name DNS allows in text form. */
export const MAX_DOMAIN_LENGTH = 253;

const LABEL_TEXT = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/**
 * The ASCII domains {@link normalizeDomain} accepts, as a pattern for API documents (with a length
 * of at most {@link MAX_DOMAIN_LENGTH}): labels of letters, digits and inner hyphens, the last one
 * starting with a letter (it may not be numeric). Internationalised names are accepted too and stored
 * in their `xn--` form; the pattern describes only the ASCII spelling.
 */
export const DOMAIN_PATTERN = `^(?:${LABEL_TEXT}\\.)*[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`;

/**
 * Checks a domain name and returns it lower-cased (internationalised names in their `xn--` form).
 * Labels are letters, digits and inner hyphens, 1 to 63 characters; at most 253 characters in all;
 * IP addresses, a trailing dot, empty labels, slashes, dots-only and percent-encoded text are refused.
 * @throws SamlConfigError `invalid_domain`
 */
export function normalizeDomain(domain: string): string {
  const refuse = (why: string): never => {
    throw new SamlConfigError(
      'invalid_domain',
      `expected a domain name such as example.com but received ${quoteValue(domain)}: ${why}`,
    );
  };
  if (typeof domain !== 'string' || domain.length === 0) return refuse('it is empty');
  if (domain.length > MAX_DOMAIN_LENGTH) return refuse(`it is longer than ${MAX_DOMAIN_LENGTH} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the range is "any ASCII"
  const ascii = /^[\x00-\x7f]+$/.test(domain) ? domain.toLowerCase() : domainToASCII(domain);
  if (ascii === '' || ascii.length > MAX_DOMAIN_LENGTH)
    return refuse('it is not a valid internationalised name');
  const labels = ascii.split('.');
  const badLabel = labels.find((label) => !LABEL.test(label));
  if (badLabel !== undefined) {
    return refuse(
      badLabel === ''
        ? 'it has an empty label'
        : `label ${quoteValue(badLabel)} is not letters, digits and inner hyphens`,
    );
  }
  if (/^\d+$/.test(labels[labels.length - 1] ?? ''))
    return refuse('the last label is numeric (an IP address is not a domain)');
  return ascii;
}
