import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type CertificateOptions,
  createMemorySamlPropertyStore,
  createSamlConfigService,
  httpStatusOf,
  isSamlConfigError,
  parseGenerateParameters,
  parsePropertyUpdate,
  retryAfterSecondsOf,
  SamlConfigError,
  type SamlConfigService,
  type SamlPropertyUpdate,
  samlConfigErrorCodes,
  samlConfigErrorHttpStatus,
} from '../src/index.js';
import { createSqliteSamlPropertyStore } from '../src/sqlite.js';

// The signatures below are checked by `pnpm typecheck` (tsc over src and test); "expect-error"
// directives must stay errors, or the compiler fails on the unused directive.

async function refusal(work: () => unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

describe('the typed public API of saml-config', () => {
  it('types generateCertificate and updateProperties precisely', () => {
    expectTypeOf<SamlConfigService['generateCertificate']>()
      .parameter(1)
      .toEqualTypeOf<CertificateOptions | undefined>();
    expectTypeOf<CertificateOptions['days']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<CertificateOptions['keyBits']>().toEqualTypeOf<2048 | 4096 | undefined>();
    expectTypeOf<SamlConfigService['updateProperties']>().parameter(1).toEqualTypeOf<SamlPropertyUpdate>();
    expectTypeOf<SamlPropertyUpdate['security.sign_metadata']>().toEqualTypeOf<boolean | null | undefined>();
    expectTypeOf<SamlPropertyUpdate['sp.entityid']>().toEqualTypeOf<string | null | undefined>();
    // The HTTP parsers read `unknown` and give back what the methods take.
    expectTypeOf(parsePropertyUpdate).parameter(0).toBeUnknown();
    expectTypeOf(parsePropertyUpdate).returns.toEqualTypeOf<SamlPropertyUpdate>();
    expectTypeOf(parseGenerateParameters).returns.toExtend<CertificateOptions>();
    expectTypeOf(httpStatusOf).returns.toEqualTypeOf<number | undefined>();

    const service = createSamlConfigService({ store: createMemorySamlPropertyStore() });
    // @ts-expect-error days is a number, not query text
    void (() => service.generateCertificate('example.com', { days: '365' }));
    // @ts-expect-error an unknown property
    void (() => service.updateProperties('example.com', { 'sp.entity_id': 'urn:sp' }));
    // @ts-expect-error a boolean property takes a boolean
    void (() => service.updateProperties('example.com', { 'security.sign_metadata': 'yes' }));
    // @ts-expect-error a typo in an option
    void (() => createSamlConfigService({ stores: createMemorySamlPropertyStore() }));
    void service.close();
  });

  it('generates with typed options and refuses what a JavaScript caller gets wrong, naming it', async () => {
    const service = createSamlConfigService({ store: createMemorySamlPropertyStore() });
    const generated = await service.generateCertificate('example.com', { days: 30, keyBits: 2048 });
    expect(String(generated.properties['sp.x509cert'])).toContain('BEGIN CERTIFICATE');
    for (const [name, options] of [
      ['days', { days: '365' }],
      ['days', { days: 0 }],
      ['digest', { digest: 'SHA256' }],
      ['encryption', { encryption: 'RSA' }],
    ] as const) {
      const error = await refusal(() => service.generateCertificate('example.com', options as never));
      expect(isSamlConfigError(error, 'invalid_parameters'), name).toBe(true);
      expect((error as SamlConfigError).details).toMatchObject({ parameter: name });
    }
    await service.close();
  });

  it('refuses a typo in any options object, naming the key', async () => {
    const cases: [string, () => unknown][] = [
      ['stores', () => createSamlConfigService({ stores: createMemorySamlPropertyStore() } as never)],
      ['filname', () => createSqliteSamlPropertyStore({ filname: ':memory:' } as never)],
    ];
    for (const [key, create] of cases) {
      const error = await refusal(create);
      expect(isSamlConfigError(error, 'invalid_options'), key).toBe(true);
      expect((error as Error).message).toContain(key);
    }
  });

  it('reads an HTTP body into an update: strings for booleans, blanks as removals', () => {
    expect(parsePropertyUpdate({ 'security.sign_metadata': 'TRUE', 'organization.lang': ' ' })).toEqual({
      'security.sign_metadata': true,
      'organization.lang': null,
    });
  });

  it('maps every error code to an HTTP status', () => {
    expect(Object.keys(samlConfigErrorHttpStatus).sort()).toEqual([...samlConfigErrorCodes].sort());
    const away = new SamlConfigError('dependency_unavailable', 'away');
    expect(httpStatusOf(away)).toBe(503);
    expect(retryAfterSecondsOf(away)).toBe(5);
    expect(httpStatusOf(new SamlConfigError('document_too_large', 'big'))).toBe(413);
    expect(retryAfterSecondsOf(new SamlConfigError('invalid_domain', 'bad'))).toBeUndefined();
    expect(httpStatusOf(new Error('other'))).toBeUndefined();
  });
});
