import { readdirSync, rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fillDisk, mountSmallDisk } from '../../../../test-support/small-disk.js';
import { createLibreOfficeConverter } from '../../src/document/libreoffice/libreoffice-converter.js';
import { pdfPageTexts } from '../../src/testing/pdf-samples.js';
import { sampleDocument } from '../../src/testing/sample-documents.js';

/** CI (`CI=true`) runs as root: there a missing prerequisite fails instead of skipping. */
const mustRun = process.env.CI === 'true';

const disk = mountSmallDisk('64m');
afterAll(() => disk.unmount());

describe('LibreOffice pool on a full temporary disk', () => {
  it.skipIf(disk.missing !== undefined && !mustRun)(
    'fails the conversion with STORAGE_FULL when neither the document nor its PDF fits, leaves no job file, keeps the instance, and converts once space is freed',
    async () => {
      if (!disk.directory) throw new Error(`the full-disk test cannot run: ${disk.missing}`);
      const workDir = join(disk.directory, 'work');
      const converter = createLibreOfficeConverter({ instances: 1, workDir });
      try {
        await converter.whenStarted();
        const filler = join(disk.directory, 'filler');
        fillDisk(filler, 256 * 1024);
        const document = await sampleDocument('text.docx');
        const error = await converter
          .convert({ data: document, type: 'docx' })
          .catch((caught: unknown) => caught);
        expect(error).toMatchObject({
          name: 'PreviewError',
          code: 'STORAGE_FULL',
          cause: { code: 'ENOSPC' },
        });
        expect((error as Error).message).not.toContain(disk.directory);
        expect(readdirSync(join(workDir, 'jobs-0'))).toEqual([]);
        expect(converter.status()).toMatchObject({ available: true, busy: 0, restarts: 0 });

        // Room for the document, none for its PDF.
        truncateSync(filler, statSync(filler).size - document.byteLength - 8192);
        const exportError = await converter
          .convert({ data: document, type: 'docx' })
          .catch((caught: unknown) => caught);
        expect(exportError).toMatchObject({ name: 'PreviewError', code: 'STORAGE_FULL' });
        expect((exportError as Error).message).not.toContain(disk.directory);
        expect(readdirSync(join(workDir, 'jobs-0'))).toEqual([]);
        expect(converter.status()).toMatchObject({ available: true, busy: 0, restarts: 0 });

        rmSync(filler);
        const pdf = await converter.convert({ data: document, type: 'docx' });
        expect(await pdfPageTexts(pdf)).toHaveLength(3);
      } finally {
        await converter.close();
      }
    },
    120_000,
  );
});
