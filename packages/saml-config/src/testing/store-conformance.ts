import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSamlConfigError } from '../errors.js';
import type { SamlProperties } from '../model/property-definitions.js';
import type { SamlPropertyStore } from '../store/property-store.js';

/** How the conformance suite gets a store of the implementation under test. */
export interface SamlPropertyStoreConformanceOptions {
  /** Creates the store once for the whole suite (a fresh table or database is the caller's choice). */
  create(): Promise<SamlPropertyStore>;
  /** Runs after the suite, after `close()`. */
  cleanup?(): Promise<void>;
}

const domain = () => `d-${randomUUID()}.example`;
const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

/**
 * Registers the vitest suite every {@link SamlPropertyStore} must pass: reads of unknown domains,
 * typed values, merges, removals, replacement, isolation between domains, concurrent writes of
 * different keys, and all-or-nothing writes.
 */
export function describeSamlPropertyStoreConformance(
  name: string,
  options: SamlPropertyStoreConformanceOptions,
): void {
  describe(`SamlPropertyStore conformance: ${name}`, () => {
    let store: SamlPropertyStore;
    beforeAll(async () => {
      store = await options.create();
    });
    afterAll(async () => {
      await store?.close();
      await store?.close();
      await options.cleanup?.();
    });

    it('returns an empty map for a domain with nothing stored', async () => {
      expect(await store.get(domain())).toEqual({});
    });

    it('stores strings and booleans with their JSON types and returns them in specification order', async () => {
      const name = domain();
      const written = await store.write(name, {
        set: {
          'security.authnrequest_signed': true,
          'sp.entityid': 'urn:sp',
          'security.sign_metadata': false,
        },
      });
      const expected = {
        'sp.entityid': 'urn:sp',
        'security.authnrequest_signed': true,
        'security.sign_metadata': false,
      };
      expect(written).toEqual(expected);
      const read = await store.get(name);
      expect(read).toEqual(expected);
      expect(Object.keys(read)).toEqual([
        'sp.entityid',
        'security.authnrequest_signed',
        'security.sign_metadata',
      ]);
    });

    it('keeps multi-line PEM text and non-ASCII text byte for byte', async () => {
      const name = domain();
      await store.write(name, { set: { 'sp.x509cert': pem, 'organization.name': 'Zürich "Ω" & <co>' } });
      expect(await store.get(name)).toEqual({ 'sp.x509cert': pem, 'organization.name': 'Zürich "Ω" & <co>' });
    });

    it('merges a write into what is stored and overwrites the keys it names', async () => {
      const name = domain();
      await store.write(name, { set: { 'sp.entityid': 'urn:a', 'idp.entityid': 'urn:idp' } });
      const after = await store.write(name, { set: { 'sp.entityid': 'urn:b', 'organization.lang': 'it' } });
      expect(after).toEqual({ 'sp.entityid': 'urn:b', 'idp.entityid': 'urn:idp', 'organization.lang': 'it' });
    });

    it('removes only the listed keys, and ignores keys that are not stored', async () => {
      const name = domain();
      await store.write(name, {
        set: { 'sp.entityid': 'urn:a', 'idp.entityid': 'urn:idp', 'organization.lang': 'en' },
      });
      const after = await store.write(name, { remove: ['sp.entityid', 'organization.lang', 'sp.x509cert'] });
      expect(after).toEqual({ 'idp.entityid': 'urn:idp' });
      expect(await store.get(name)).toEqual({ 'idp.entityid': 'urn:idp' });
    });

    it('removes everything with remove=all, and replaces everything with remove=all plus set', async () => {
      const name = domain();
      await store.write(name, { set: { 'sp.entityid': 'urn:a', 'idp.entityid': 'urn:idp' } });
      expect(await store.write(name, { remove: 'all', set: { 'organization.lang': 'de' } })).toEqual({
        'organization.lang': 'de',
      });
      expect(await store.write(name, { remove: 'all' })).toEqual({});
      expect(await store.get(name)).toEqual({});
    });

    it('keeps domains apart', async () => {
      const first = domain();
      const second = domain();
      await store.write(first, { set: { 'sp.entityid': 'urn:first' } });
      await store.write(second, { set: { 'sp.entityid': 'urn:second' } });
      await store.write(second, { remove: 'all' });
      expect(await store.get(first)).toEqual({ 'sp.entityid': 'urn:first' });
    });

    it('keeps every one of many concurrent writes of different keys', async () => {
      const name = domain();
      const values: SamlProperties = {
        'sp.entityid': 'urn:sp',
        'idp.entityid': 'urn:idp',
        'organization.name': 'Acme',
        'organization.displayname': 'Acme Ltd',
        'organization.url': 'https://acme.example',
        'organization.lang': 'en',
        'contacts.technical.given_name': 'Tech',
        'contacts.support.given_name': 'Support',
        'security.authnrequest_signed': true,
        'security.sign_metadata': true,
      };
      await Promise.all(
        Object.entries(values).map(([key, value]) => store.write(name, { set: { [key]: value } })),
      );
      expect(await store.get(name)).toEqual(values);
    });

    it('changes nothing when a write fails part-way (all or nothing)', async () => {
      const name = domain();
      await store.write(name, { set: { 'sp.entityid': 'urn:before', 'idp.entityid': 'urn:idp' } });
      const broken = { 'organization.lang': 'fr', 'sp.entityid': 42 } as unknown as SamlProperties;
      const failure = await store
        .write(name, { remove: 'all', set: broken })
        .catch((error: unknown) => error);
      expect(isSamlConfigError(failure, 'store_failed')).toBe(true);
      expect(await store.get(name)).toEqual({ 'sp.entityid': 'urn:before', 'idp.entityid': 'urn:idp' });
    });
  });
}
