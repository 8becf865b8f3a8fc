import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredFileRef, StoredFileSource } from '../../storage/stored-file-source.js';

/** What a conformance run needs from an adapter under test. */
export interface StoredFileSourceFixture {
  /** The adapter under test, reading what `put` stored. */
  readonly source: StoredFileSource;
  /** Stores `bytes` so that `source.read(ref)` returns them. */
  put(ref: StoredFileRef, bytes: Uint8Array): Promise<void>;
  /** Releases servers, folders and the like. */
  close?(): Promise<void>;
}

const ID = '5f0c8a52-6d0b-4c43-9a57-2f5b0a7c1e11';
const OTHER_ID = 'b0d2f6a4-1c3e-4f5a-8b7c-9d0e1f2a3b4c';

function patternBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let index = 0; index < length; index += 1) bytes[index] = (index * 31 + (index >> 8)) & 0xff;
  return bytes;
}

/**
 * Registers vitest cases every {@link StoredFileSource} adapter must pass: exact bytes back, versions
 * and service types kept apart, NOT_FOUND for anything missing, malformed references refused, the
 * id accepted in any UUID spelling, concurrent reads and an aborted signal honoured.
 */
export function describeStoredFileSourceConformance(
  name: string,
  createFixture: () => Promise<StoredFileSourceFixture>,
): void {
  describe(`StoredFileSource conformance: ${name}`, () => {
    let fixture: StoredFileSourceFixture;
    const allBytes = patternBytes(256 * 1024 + 7);

    beforeAll(async () => {
      fixture = await createFixture();
      await fixture.put({ id: ID, version: 0, serviceType: 'files' }, allBytes);
      await fixture.put({ id: ID, version: 1, serviceType: 'files' }, new Uint8Array([1, 2, 3]));
      await fixture.put({ id: ID, version: 1, serviceType: 'chats' }, new Uint8Array([9]));
      await fixture.put({ id: OTHER_ID, version: 4, serviceType: 'files' }, new Uint8Array(0));
    });
    afterAll(async () => {
      await fixture?.close?.();
    });

    it('returns the exact bytes stored', async () => {
      const bytes = await fixture.source.read({ id: ID, version: 0, serviceType: 'files' });
      expect(bytes).toBeInstanceOf(Uint8Array);
      expect(Buffer.from(bytes).equals(Buffer.from(allBytes))).toBe(true);
    });

    it('keeps versions and service types apart', async () => {
      expect([...(await fixture.source.read({ id: ID, version: 1, serviceType: 'files' }))]).toEqual([
        1, 2, 3,
      ]);
      expect([...(await fixture.source.read({ id: ID, version: 1, serviceType: 'chats' }))]).toEqual([9]);
    });

    it('returns an empty file as zero bytes', async () => {
      const bytes = await fixture.source.read({ id: OTHER_ID, version: 4, serviceType: 'files' });
      expect(bytes.byteLength).toBe(0);
    });

    it('accepts the id upper-case or without hyphens', async () => {
      const upper = await fixture.source.read({ id: ID.toUpperCase(), version: 1, serviceType: 'files' });
      const bare = await fixture.source.read({
        id: ID.replaceAll('-', ''),
        version: 1,
        serviceType: 'files',
      });
      expect([...upper]).toEqual([1, 2, 3]);
      expect([...bare]).toEqual([1, 2, 3]);
    });

    it.each([
      ['an unknown id', { id: '00000000-0000-4000-8000-000000000000', version: 0, serviceType: 'files' }],
      ['an unknown version', { id: ID, version: 7, serviceType: 'files' }],
      ['another service type', { id: ID, version: 0, serviceType: 'chats' }],
    ] as const)('answers NOT_FOUND for %s', async (_label, ref) => {
      await expect(fixture.source.read(ref)).rejects.toMatchObject({
        name: 'PreviewError',
        code: 'NOT_FOUND',
      });
    });

    it.each([
      ['a path as id', { id: '../../etc/passwd', version: 0, serviceType: 'files' }],
      ['a negative version', { id: ID, version: -1, serviceType: 'files' }],
      ['a fractional version', { id: ID, version: 1.5, serviceType: 'files' }],
      ['an unknown service type', { id: ID, version: 0, serviceType: '..' }],
    ])('refuses %s with INVALID_OPTION', async (_label, ref) => {
      await expect(fixture.source.read(ref as unknown as StoredFileRef)).rejects.toMatchObject({
        code: 'INVALID_OPTION',
      });
    });

    it('says whether a version exists (when the adapter has exists), refusing malformed references', async ({
      skip,
    }) => {
      const { source } = fixture;
      if (!source.exists) return skip('this adapter has no exists(); callers fall back to read()');
      expect(await source.exists({ id: ID, version: 1, serviceType: 'chats' })).toBe(true);
      expect(await source.exists({ id: OTHER_ID.toUpperCase(), version: 4, serviceType: 'files' })).toBe(
        true,
      );
      expect(await source.exists({ id: ID, version: 2, serviceType: 'files' })).toBe(false);
      expect(await source.exists({ id: OTHER_ID, version: 4, serviceType: 'chats' })).toBe(false);
      await expect(source.exists({ id: '../x', version: 1, serviceType: 'files' })).rejects.toMatchObject({
        code: 'INVALID_OPTION',
      });
    });

    it('serves concurrent reads', async () => {
      const reads = Array.from({ length: 8 }, () =>
        fixture.source.read({ id: ID, version: 0, serviceType: 'files' }),
      );
      for (const bytes of await Promise.all(reads)) expect(bytes.byteLength).toBe(allBytes.byteLength);
    });

    it('rejects with the reason of an already aborted signal', async () => {
      const controller = new AbortController();
      const reason = new Error('caller gave up');
      controller.abort(reason);
      await expect(
        fixture.source.read({ id: ID, version: 0, serviceType: 'files' }, controller.signal),
      ).rejects.toBe(reason);
    });
  });
}
