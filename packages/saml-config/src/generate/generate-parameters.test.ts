import { describe, expect, it } from 'vitest';
import { isSamlConfigError } from '../errors.js';
import { parseGenerateParameters } from './generate-parameters.js';

function refusal(query: Record<string, unknown>): string {
  try {
    parseGenerateParameters(query);
  } catch (error) {
    expect(isSamlConfigError(error, 'invalid_parameters')).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('parseGenerateParameters', () => {
  it('defaults to 365 days, SHA-256 and RSA 2048 with no subject fields but CN', () => {
    expect(parseGenerateParameters({})).toEqual({ days: 365, digest: 'SHA-256', keyBits: 2048 });
  });

  it('accepts the documented values and harmless aliases', () => {
    expect(
      parseGenerateParameters({
        days: '30',
        digest: 'sha-512',
        encryption: 'rsa-4096',
        country: 'it',
        state: 'VI',
        location: 'Vicenza',
        organization: 'Acme, Inc.',
        organizationalUnit: 'R+D=1',
      }),
    ).toEqual({
      days: 30,
      digest: 'SHA-512',
      keyBits: 4096,
      country: 'IT',
      state: 'VI',
      location: 'Vicenza',
      organization: 'Acme, Inc.',
      organizationalUnit: 'R+D=1',
    });
    expect(parseGenerateParameters({ digest: 'SHA1', encryption: 'RSA' })).toMatchObject({
      digest: 'SHA-1',
      keyBits: 2048,
    });
    expect(parseGenerateParameters({ digest: 'SHA384' })).toMatchObject({ digest: 'SHA-384' });
  });

  it.each([
    [{ days: '0' }, 'days: expected a whole number of days from 1 to 3650 but received "0"'],
    [{ days: '-5' }, 'days'],
    [{ days: '1.5' }, 'days'],
    [{ days: 'ten' }, 'days'],
    [{ days: '3651' }, 'days'],
    [{ digest: 'MD5' }, 'digest: expected SHA1, SHA256, SHA384 or SHA512 but received "MD5"'],
    [{ encryption: 'EC:256' }, 'encryption'],
    [{ encryption: 'RSA:1024' }, 'encryption'],
    [{ country: 'ITA' }, 'country: expected a two-letter country code'],
    [{ country: 'I1' }, 'country'],
    [{ organization: '' }, 'organization'],
    [{ organization: 'x'.repeat(65) }, 'organization: expected 1 to 64 characters'],
    [{ organization: 'Acme\nCN=evil' }, 'organization'],
    [{ state: ['a', 'b'] }, 'state: expected a single value'],
    [{ commonName: 'evil.example' }, 'commonName: expected no such parameter'],
  ])('refuses %j', (query, message) => {
    expect(refusal(query)).toContain(message);
  });
});
