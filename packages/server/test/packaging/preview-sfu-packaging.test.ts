import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const packagesFolder = path.join(repositoryRoot, 'packages');
const bin = (name: string) => path.join(repositoryRoot, 'node_modules/.bin', name);
/** The target for preview-core installed for images only (sharp, zod, piscina, lru-cache). */
const IMAGES_ONLY_LIMIT_BYTES = 35 * 1024 * 1024;

/** Bytes of every file under `folder` (du's apparent size, as npm users count a node_modules). */
async function folderBytes(folder: string): Promise<number> {
  const { stdout } = await run('du', ['-sb', folder]);
  return Number(stdout.split('\t')[0]);
}

async function pack(library: string, destination: string): Promise<string> {
  const before = new Set(readdirSync(destination));
  await run('pnpm', ['pack', '--pack-destination', destination], { cwd: path.join(packagesFolder, library) });
  const created = readdirSync(destination).find((name) => !before.has(name));
  if (!created) throw new Error(`pnpm pack of ${library} wrote no tarball`);
  return path.join(destination, created);
}

async function npmProject(folder: string, packages: string[]): Promise<void> {
  writeFileSync(
    path.join(folder, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...packages], {
    cwd: folder,
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** Runs an ES module in `folder` and gives its last line of output, parsed. */
async function evaluate(folder: string, source: string): Promise<unknown> {
  const file = path.join(folder, `script-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, source);
  const { stdout } = await run(process.execPath, [file], { cwd: folder });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null');
}

/**
 * preview-core and webrtc-sfu as npm users get them (built by `pnpm build`, packed by `pnpm pack`):
 * the images-only install size, typos in options refused, import times, attw and publint.
 */
describe('preview-core and webrtc-sfu packages', () => {
  let work: string;
  let tarballs: { previewCore: string; webrtcSfu: string; server: string };

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'collab-preview-sfu-'));
    const packs = path.join(work, 'packs');
    await run('mkdir', ['-p', packs]);
    tarballs = {
      previewCore: await pack('preview-core', packs),
      webrtcSfu: await pack('webrtc-sfu', packs),
      server: await pack('server', packs),
    };
  }, 300_000);

  it('installs preview-core for images only within 35 MB, renders a thumbnail, and names mupdf when a PDF is asked', async () => {
    const project = path.join(work, 'images-only');
    await run('mkdir', ['-p', project]);
    await npmProject(project, [tarballs.previewCore]);
    const bytes = await folderBytes(path.join(project, 'node_modules'));
    console.log(`preview-core images-only install: ${(bytes / 1024 / 1024).toFixed(1)} MB`);
    expect(bytes).toBeLessThanOrEqual(IMAGES_ONLY_LIMIT_BYTES);
    const installed = readdirSync(path.join(project, 'node_modules'));
    expect(installed).not.toContain('mupdf');
    expect(installed).not.toContain('pdf-lib');
    const answer = await evaluate(
      project,
      `import sharp from 'sharp';
import { createPreviewService } from '@collab-suite/preview-core/image';
import { createPdfPreviewer } from '@collab-suite/preview-core/pdf';
const source = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } }).png().toBuffer();
const thumbnail = await createPreviewService().imageThumbnail(source, { area: '80x80' });
const previewer = createPdfPreviewer();
const refusal = await previewer.renderFirstPage(new TextEncoder().encode('%PDF-1.4\\n%%EOF\\n'), { width: 80, height: 80 }).catch((error) => error);
await previewer.close();
console.log(JSON.stringify({ format: thumbnail.format, code: refusal.code, message: refusal.message }));`,
    );
    expect(answer).toMatchObject({ format: 'jpeg', code: 'MISSING_DEPENDENCY' });
    expect((answer as { message: string }).message).toContain('npm install mupdf@');
  }, 600_000);

  it('refuses a typo in an option, naming it, in preview-core and webrtc-sfu', async () => {
    const project = path.join(work, 'typos');
    await run('mkdir', ['-p', project]);
    await npmProject(project, [tarballs.previewCore, tarballs.webrtcSfu]);
    const answer = await evaluate(
      project,
      `import { createPreviewService } from '@collab-suite/preview-core';
import { createSfu } from '@collab-suite/webrtc-sfu';
const caught = (work) => { try { work(); return null; } catch (error) { return { code: error.code, message: error.message }; } };
console.log(JSON.stringify({
  preview: caught(() => createPreviewService({ limits: { maxConcurentRenders: 2 } })),
  sfu: caught(() => createSfu({ ice: { portRang: [40000, 41000] } })),
}));`,
    );
    expect(answer).toEqual({
      preview: { code: 'INVALID_OPTION', message: expect.stringContaining('limits.maxConcurentRenders') },
      sfu: { code: 'invalid_options', message: expect.stringContaining('ice.portRang') },
    });
    for (const entry of [
      '@collab-suite/preview-core',
      '@collab-suite/preview-core/image',
      '@collab-suite/preview-core/http',
      '@collab-suite/webrtc-sfu',
    ]) {
      const { stdout } = await run(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const start = performance.now(); await import(${JSON.stringify(entry)}); console.log((performance.now() - start).toFixed(0));`,
        ],
        { cwd: project },
      );
      console.log(`import time of ${entry}: ${stdout.trim()} ms (cold process, this machine, not asserted)`);
    }
  }, 600_000);

  it('pass attw with the esm-only profile and publint', async () => {
    for (const tarball of Object.values(tarballs)) {
      const attw = await run(bin('attw'), [tarball, '--profile', 'esm-only', '--format', 'ascii'], {
        maxBuffer: 16 * 1024 * 1024,
      }).then(
        () => 'ok',
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      expect(attw, path.basename(tarball)).toBe('ok');
    }
    for (const library of ['preview-core', 'webrtc-sfu', 'server']) {
      const { stdout } = await run(bin('publint'), ['--strict'], { cwd: path.join(packagesFolder, library) });
      expect(stdout, library).toContain('All good!');
    }
  }, 600_000);
});
