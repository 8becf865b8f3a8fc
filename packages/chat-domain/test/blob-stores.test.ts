import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDiskBlobStore, createMemoryBlobStore } from '@collab-suite/chat-domain';
import { describeBlobStoreConformance } from '@collab-suite/chat-domain/testing/vitest';
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

  it('sweeps old temporaries and unreferenced blobs, and never a referenced or a recent one', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'chat-blobs-'));
    try {
      const store = createDiskBlobStore({ directory });
      await store.put('attachments/kept', Buffer.from('kept'));
      await store.put('attachments/orphan', Buffer.from('orphan'));
      await store.put('pictures/room/orphan', Buffer.from('orphan picture'));
      await store.put('attachments/recent', Buffer.from('recent'));
      await writeFile(join(directory, 'attachments', 'cut.0f9c.partial'), 'half');
      await writeFile(join(directory, 'attachments', 'fresh.1a2b.partial'), 'writing');
      await mkdir(join(directory, 'other'));
      await writeFile(join(directory, 'other', 'README.TXT'), 'not a blob');
      const anHourAgo = new Date(Date.now() - 3_600_000);
      for (const path of [
        'attachments/kept',
        'attachments/orphan',
        'pictures/room/orphan',
        'attachments/cut.0f9c.partial',
        'other/README.TXT',
      ]) {
        await utimes(join(directory, ...path.split('/')), anHourAgo, anHourAgo);
      }
      const asked: string[] = [];
      const result = await store.sweep?.({
        olderThan: new Date(Date.now() - 60_000),
        isReferenced: async (keys) => {
          asked.push(...keys);
          return keys.filter((key) => key === 'attachments/kept');
        },
      });
      expect(result).toEqual({ temporaries: 1, unreferenced: 2 });
      expect(asked.sort()).toEqual(['attachments/kept', 'attachments/orphan', 'pictures/room/orphan']);
      expect((await readdir(join(directory, 'attachments'))).sort()).toEqual([
        'fresh.1a2b.partial',
        'kept',
        'recent',
      ]);
      expect(await readdir(join(directory, 'pictures', 'room'))).toEqual([]);
      expect(await readdir(join(directory, 'other'))).toEqual(['README.TXT']);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
