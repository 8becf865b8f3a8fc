import { describe, expect, it } from 'vitest';
import { isSamlConfigError } from '../errors.js';
import { normalizeDomain } from './domain.js';

describe('normalizeDomain', () => {
  it('lower-cases valid names and converts internationalised ones to their xn-- form', () => {
    expect(normalizeDomain('Example.COM')).toBe('example.com');
    expect(normalizeDomain('mail-1.example.co.uk')).toBe('mail-1.example.co.uk');
    expect(normalizeDomain('bücher.example')).toBe('xn--bcher-kva.example');
    expect(normalizeDomain('localhost')).toBe('localhost');
  });

  it.each([
    ['', 'empty'],
    ['../..', 'empty label'],
    ['..%2F..', 'empty label'],
    ['a/b.example', 'label'],
    ['-bad.example', 'label'],
    ['bad-.example', 'label'],
    ['exa mple.com', 'label'],
    ['example.com.', 'empty label'],
    ['127.0.0.1', 'numeric'],
    [`${'a'.repeat(64)}.example`, 'label'],
    [`${'a.'.repeat(130)}example`, 'longer than 253'],
  ])('refuses %j with invalid_domain (%s)', (domain, why) => {
    let error: unknown;
    try {
      normalizeDomain(domain);
    } catch (caught) {
      error = caught;
    }
    expect(isSamlConfigError(error, 'invalid_domain')).toBe(true);
    expect((error as Error).message).toContain(why);
  });
});
