import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlobStore } from '../ports/blob-store.js';

async function* chunks(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield Buffer.from(part);
}

async function read(store: BlobStore, key: string): Promise<string | undefined> {
  const blob = await store.get(key);
  return blob === undefined ? undefined : (await buffer(blob.content)).toString('utf8');
}

/**
 * Registers the behaviour every {@link BlobStore} must have. `open` returns a fresh, empty store
 * for each test; `dispose` (optional) removes what it left.
 */
export function describeBlobStoreConformance(
  name: string,
  open: () => Promise<BlobStore>,
  dispose: (store: BlobStore) => Promise<void> = async () => {},
): void {
  describe(`BlobStore conformance: ${name}`, () => {
    let store: BlobStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await dispose(store);
    });

    it('stores bytes from a buffer and from a stream and reads them back with their size', async () => {
      expect(await store.put('attachments/one', Buffer.from('hello'))).toEqual({ size: 5 });
      expect(await store.put('pictures/room/two', chunks('ab', 'cd', 'e'))).toEqual({ size: 5 });
      expect(await read(store, 'attachments/one')).toBe('hello');
      expect((await store.get('pictures/room/two'))?.size).toBe(5);
      expect(await read(store, 'pictures/room/two')).toBe('abcde');
    });

    it('answers undefined for a key that holds nothing', async () => {
      expect(await store.get('attachments/missing')).toBeUndefined();
    });

    it('replaces the bytes of a key', async () => {
      await store.put('attachments/one', Buffer.from('first'));
      await store.put('attachments/one', Buffer.from('second'));
      expect(await read(store, 'attachments/one')).toBe('second');
    });

    it('refuses a blob past maxBytes and keeps nothing of it', async () => {
      await expect(
        store.put('attachments/big', chunks('1234', '5678'), { maxBytes: 6 }),
      ).rejects.toMatchObject({
        code: 'payload_too_large',
      });
      expect(await store.get('attachments/big')).toBeUndefined();
      await store.put('attachments/kept', Buffer.from('old'));
      await expect(
        store.put('attachments/kept', Buffer.from('too long'), { maxBytes: 3 }),
      ).rejects.toMatchObject({
        code: 'payload_too_large',
      });
      expect(await read(store, 'attachments/kept')).toBe('old');
    });

    it('copies bytes and answers false when the source is absent', async () => {
      await store.put('attachments/source', Buffer.from('copy me'));
      expect(await store.copy('attachments/source', 'attachments/target')).toBe(true);
      expect(await read(store, 'attachments/target')).toBe('copy me');
      expect(await store.copy('attachments/nothing', 'attachments/other')).toBe(false);
      expect(await store.get('attachments/other')).toBeUndefined();
    });

    it('deletes idempotently', async () => {
      await store.put('attachments/one', Buffer.from('x'));
      await store.delete('attachments/one');
      await store.delete('attachments/one');
      expect(await store.get('attachments/one')).toBeUndefined();
    });

    it('refuses keys that could escape its namespace', async () => {
      for (const key of ['../etc/passwd', '/abs', 'Upper', '', 'a//b', 'a/../b']) {
        await expect(store.put(key, Buffer.from('x'))).rejects.toMatchObject({ code: 'invalid_input' });
      }
    });
  });
}
