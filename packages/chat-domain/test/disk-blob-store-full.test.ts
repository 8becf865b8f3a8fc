import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createDiskBlobStore } from '@collab-suite/chat-domain';
import { afterAll, describe, expect, it } from 'vitest';
import { mountSmallDisk } from '../../../test-support/small-disk.js';

/** CI (`CI=true`) can mount a tmpfs: there a missing prerequisite fails instead of skipping. */
const mustRun = process.env.CI === 'true';

const disk = mountSmallDisk('1m');
afterAll(() => disk.unmount());

describe('disk blob store on a full disk (a 1 MiB tmpfs)', () => {
  it.skipIf(disk.missing !== undefined && !mustRun)(
    'refuses a blob larger than the free space with storage_full, keeping nothing, and stores again once space is freed',
    async () => {
      if (!disk.directory) throw new Error(`the full-disk test cannot run: ${disk.missing}`);
      const store = createDiskBlobStore({ directory: disk.directory });
      await store.put('attachments/kept', Buffer.alloc(600 * 1024, 1));
      const chunks = (async function* () {
        for (let index = 0; index < 16; index += 1) yield Buffer.alloc(64 * 1024, 2);
      })();
      await expect(store.put('attachments/big', chunks)).rejects.toMatchObject({
        name: 'ChatError',
        code: 'storage_full',
        cause: { code: 'ENOSPC' },
      });
      await expect(store.copy('attachments/kept', 'attachments/copy')).rejects.toMatchObject({
        code: 'storage_full',
      });
      expect(readdirSync(join(disk.directory, 'attachments'))).toEqual(['kept']);
      expect(await store.get('attachments/big')).toBeUndefined();

      await store.delete('attachments/kept');
      expect(await store.put('attachments/small', Buffer.from('small'))).toEqual({ size: 5 });
      expect(readdirSync(join(disk.directory, 'attachments'))).toEqual(['small']);
    },
  );
});
