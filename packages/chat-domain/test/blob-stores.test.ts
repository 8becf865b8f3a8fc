import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDiskBlobStore, createMemoryBlobStore } from '@collab-suite/chat-domain';
import { describeBlobStoreConformance } from '@collab-suite/chat-domain/testing';
import { describe, expect, it } from 'vitest';

describeBlobStoreConformance('memory', async () => createMemoryBlobStore());

const folders = new Map<object, string>();
describeBlobStoreConformance(
  'disk',
  async () => {
    const directory = await mkdtemp(join(tmpdir(), 'chat-blobs-'));
    const store = createDiskBlobStore({ directory });
    folders.set(store, directory);
    return store;
  },
  async (store) => {
    await rm(folders.get(store) ?? '', { recursive: true, force: true });
  },
);

describe('disk blob store', () => {
  it('leaves no partial file behind when a blob is refused', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'chat-blobs-'));
    try {
      const store = createDiskBlobStore({ directory });
      await expect(store.put('attachments/big', Buffer.alloc(100), { maxBytes: 10 })).rejects.toMatchObject({
        code: 'payload_too_large',
      });
      expect(await readdir(join(directory, 'attachments'))).toEqual([]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
