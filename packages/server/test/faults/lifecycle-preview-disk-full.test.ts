import { rmSync } from 'node:fs';
import path from 'node:path';
import { pdfPageTexts, sampleDocument } from '@collab-suite/preview-core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { fillDisk, mountSmallDisk } from '../../../../test-support/small-disk.js';
import { type ClusterNode, startClusterNode } from '../cluster/cluster-nodes.js';
import { bodyBytes, upload } from '../preview/preview-test-support.js';

/** CI (`CI=true`) runs as root: there a missing prerequisite fails instead of skipping. */
const mustRun = process.env.CI === 'true';
// LibreOffice's profile takes a few MiB of the temporary folder before the disk is filled.
const disk = mountSmallDisk('64m');
let node: ClusterNode | undefined;
afterAll(async () => {
  await node?.kill('SIGKILL');
  disk.unmount();
});

/** Waits (up to two minutes: soffice starts slowly on a loaded machine) until `/health/ready/` is 200. */
async function untilReady(url: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while ((await fetch(`${url}/health/ready/`)).status !== 200) {
    if (Date.now() > deadline) throw new Error('the server did not get ready (LibreOffice not started)');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('a full temporary disk under the LibreOffice pool (a 64 MiB tmpfs as TMPDIR, built dist/main.js)', () => {
  it.skipIf(disk.missing !== undefined && !mustRun)(
    'answers a document preview upload with 507 STORAGE_FULL, stays up, and converts once space is freed',
    async () => {
      if (!disk.directory) throw new Error(`the full-disk test cannot run: ${disk.missing}`);
      node = await startClusterNode('preview-disk-full', {
        TMPDIR: disk.directory,
        DOCUMENT_CONVERTER: 'libreoffice',
        LIBREOFFICE_INSTANCES: '1',
      });
      await untilReady(node.url);
      const document = await sampleDocument('text.docx');
      // Ready means an instance is starting or up; one conversion of another document (results are
      // cached) proves it is up: on a loaded machine its profile may still be being written otherwise.
      const warmUp = await sampleDocument('text.odt');
      const first = await upload(`${node.url}/preview/document/`, warmUp, { fileName: 'text.odt' });
      expect(first.status, await first.clone().text()).toBe(200);
      const filler = path.join(disk.directory, 'filler');
      fillDisk(filler);

      const refused = await upload(`${node.url}/preview/document/`, document, { fileName: 'text.docx' });
      const refusedText = await refused.text();
      expect(refused.status, `${refusedText}\n${node.output().slice(-4000)}`).toBe(507);
      // The preview API's error body is `{ detail }`, as the original's.
      const body = JSON.parse(refusedText) as { detail?: string };
      expect(body.detail).toContain("the converter's temporary disk is full");
      expect(JSON.stringify(body)).not.toContain(disk.directory);
      expect(node.process.exitCode).toBeNull();

      rmSync(filler);
      const converted = await upload(`${node.url}/preview/document/`, document, { fileName: 'text.docx' });
      expect(converted.status).toBe(200);
      expect(await pdfPageTexts(await bodyBytes(converted))).toHaveLength(3);
    },
    240_000,
  );
});
