import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createLibreOfficeConverter,
  type LibreOfficeConverter,
} from '../../src/document/libreoffice/libreoffice-converter.js';
import {
  type LibreOfficeOptionsInput,
  libreOfficeOptionsSchema,
} from '../../src/document/libreoffice/libreoffice-options.js';
import { SofficeProcess } from '../../src/document/libreoffice/soffice-process.js';
import { helperScriptPath } from '../../src/document/libreoffice/uno-helper.js';
import type { PreviewError } from '../../src/errors.js';
import { pdfPageTexts } from '../../src/testing/pdf-samples.js';
import { sampleDocument } from '../../src/testing/sample-documents.js';

// Faults against real soffice processes. "Hangs" are made by stopping the instance's process group
// with SIGSTOP, which freezes LibreOffice exactly like a wedged conversion; kills use SIGKILL on the
// group the pool reports. Only process groups started by the pool under test are signalled.

const open: LibreOfficeConverter[] = [];

async function startPool(options: LibreOfficeOptionsInput = {}): Promise<LibreOfficeConverter> {
  const converter = createLibreOfficeConverter({ instances: 1, ...options });
  open.push(converter);
  await converter.whenStarted();
  return converter;
}

function groupOf(converter: LibreOfficeConverter): number {
  const pid = converter.status().pool[0]?.pid;
  if (!pid) throw new Error('the instance is not running');
  return pid;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 600; tries += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting until ${what}`);
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((converter) => converter.close()));
});

describe('LibreOffice pool faults', () => {
  it('fails a conversion whose instance is killed with CONVERTER_CRASHED, restarts it, and the next one succeeds', async () => {
    const converter = await startPool();
    const long = await sampleDocument('long.docx');
    const conversion = converter.convert({ data: long, type: 'docx' }).catch((error: unknown) => error);
    await until(() => converter.status().busy === 1, 'the conversion runs');
    process.kill(-groupOf(converter), 'SIGKILL');
    const error = await conversion;
    expect(error).toMatchObject({ code: 'CONVERTER_CRASHED', details: { retryAfterSeconds: 2 } });
    expect((error as Error).message).toContain('stopped during the conversion');
    const pdf = await converter.convert({ data: await sampleDocument('text.docx'), type: 'docx' });
    expect(await pdfPageTexts(pdf)).toHaveLength(3);
    expect(converter.status()).toMatchObject({ restarts: 1, available: true });
  });

  it('kills and restarts an instance that hangs past the conversion timeout (CONVERSION_TIMEOUT)', async () => {
    const converter = await startPool({ conversionTimeoutMs: 1_500 });
    const frozenGroup = groupOf(converter);
    process.kill(-frozenGroup, 'SIGSTOP');
    const error = await converter
      .convert({ data: await sampleDocument('text.docx'), type: 'docx' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'CONVERSION_TIMEOUT', details: { timeoutMs: 1_500 } });
    expect((error as Error).message).toContain('took longer than 1.5 s');
    const pdf = await converter.convert({ data: await sampleDocument('text.odt'), type: 'odt' });
    expect(await pdfPageTexts(pdf)).toHaveLength(3);
    expect(converter.status().restarts).toBe(1);
    expect(groupOf(converter)).not.toBe(frozenGroup);
  });

  it('times out a large document with a tiny timeout and converts a small one afterwards', async () => {
    const converter = await startPool({ conversionTimeoutMs: 150 });
    const error = await converter
      .convert({ data: await sampleDocument('long.docx'), type: 'docx' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'CONVERSION_TIMEOUT' });
    expect(converter.status().restarts).toBe(1);
  });

  it('restarts an instance after restartAfterConversions conversions', async () => {
    const converter = await startPool({ restartAfterConversions: 2 });
    const firstGroup = groupOf(converter);
    const data = await sampleDocument('text.docx');
    await converter.convert({ data, type: 'docx' });
    await converter.convert({ data, type: 'docx' });
    const pdf = await converter.convert({ data, type: 'docx' });
    expect(await pdfPageTexts(pdf)).toHaveLength(3);
    expect(converter.status().restarts).toBe(1);
    expect(groupOf(converter)).not.toBe(firstGroup);
  });

  it('refuses a PDF larger than maxOutputBytes with CONVERSION_FAILED and keeps the instance', async () => {
    const converter = await startPool({ maxOutputBytes: 2_000 });
    const error = await converter
      .convert({ data: await sampleDocument('text.docx'), type: 'docx' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'CONVERSION_FAILED', details: { maxOutputBytes: 2_000 } });
    expect((error as Error).message).toContain('more than the limit of 2000');
    expect(converter.status()).toMatchObject({ available: true, restarts: 0 });
  });

  it('answers BUSY with a retry hint when the queue is full, and serves the queued conversion', async () => {
    const converter = await startPool({ maxQueued: 1 });
    const data = await sampleDocument('text.docx');
    const running = converter.convert({ data, type: 'docx' });
    const queued = converter.convert({ data, type: 'docx' });
    const refused = await converter.convert({ data, type: 'docx' }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'BUSY' });
    expect(
      (refused as { details: { retryAfterSeconds: number } }).details.retryAfterSeconds,
    ).toBeGreaterThanOrEqual(1);
    expect(await pdfPageTexts(await running)).toHaveLength(3);
    expect(await pdfPageTexts(await queued)).toHaveLength(3);
  });

  it('answers BUSY for a conversion that waited longer than queueTimeoutMs', async () => {
    const converter = await startPool({ queueTimeoutMs: 200, conversionTimeoutMs: 3_000 });
    process.kill(-groupOf(converter), 'SIGSTOP');
    const data = await sampleDocument('text.docx');
    const stuck = converter.convert({ data, type: 'docx' }).catch((error: unknown) => error);
    const waiting = await converter.convert({ data, type: 'docx' }).catch((error: unknown) => error);
    expect(waiting).toMatchObject({ code: 'BUSY' });
    expect((waiting as Error).message).toContain('within 200 ms');
    expect(await stuck).toMatchObject({ code: 'CONVERSION_TIMEOUT' });
  });

  it('fails waiting conversions with CONVERTER_UNAVAILABLE when closed', async () => {
    const converter = await startPool();
    process.kill(-groupOf(converter), 'SIGSTOP');
    const data = await sampleDocument('text.docx');
    const running = converter.convert({ data, type: 'docx' }).catch((error: unknown) => error);
    const queued = converter.convert({ data, type: 'docx' }).catch((error: unknown) => error);
    await converter.close();
    expect(await queued).toMatchObject({ code: 'CONVERTER_UNAVAILABLE' });
    expect(await running).toMatchObject({ code: 'CONVERTER_CRASHED' });
  });
});

describe('LibreOffice pool without LibreOffice', () => {
  it('reports itself unavailable and answers CONVERTER_UNAVAILABLE when soffice is missing', async () => {
    const converter = await startPool({
      sofficePath: '/nonexistent/libreoffice/soffice',
      startRetryDelayMs: 60_000,
    });
    const status = converter.status();
    expect(status.available).toBe(false);
    expect(status.reason).toContain('/nonexistent/libreoffice/soffice');
    expect(status.pool[0]?.state).toBe('failed');
    const error = await converter
      .convert({ data: await sampleDocument('text.docx'), type: 'docx' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'CONVERTER_UNAVAILABLE',
      message: expect.stringContaining('document previews are offline'),
    });
    expect((error as PreviewError).details?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('gives up on an soffice that never accepts UNO connections after startTimeoutMs', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'silent-soffice-'));
    const silent = join(folder, 'soffice');
    writeFileSync(silent, '#!/bin/sh\nexec sleep 60\n', { mode: 0o755 });
    try {
      const converter = await startPool({
        sofficePath: silent,
        startTimeoutMs: 300,
        startRetryDelayMs: 60_000,
      });
      expect(converter.status()).toMatchObject({ available: false, pool: [{ state: 'failed' }] });
      expect(converter.status().reason).toContain('did not accept UNO connections within 300 ms');
      const error = await converter
        .convert({ data: await sampleDocument('text.docx'), type: 'docx' })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'CONVERTER_UNAVAILABLE' });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('reports a python without the UNO bridge as the reason', async () => {
    const converter = await startPool({ pythonPath: '/nonexistent/python3', startRetryDelayMs: 60_000 });
    expect(converter.status().available).toBe(false);
    expect(converter.status().reason).toContain('/nonexistent/python3');
  });
});

describe('soffice never outlives the process that drives it', () => {
  it('is killed by its UNO helper when the helper loses its parent, even during a hung conversion', async () => {
    const profile = mkdtempSync(join(tmpdir(), 'orphan-test-'));
    const soffice = new SofficeProcess('soffice', profile);
    const group = soffice.pid;
    if (!group) throw new Error('soffice did not start');
    // The helper's parent is a shell this test can kill; its stdin stays open (no EOF), so only the
    // helper's parent watch can notice that the parent is gone.
    const { pythonPath } = libreOfficeOptionsSchema.parse({});
    const shell = spawn(
      'sh',
      [
        '-c',
        '"$0" "$1" --connect "$2" --timeout 60 --soffice-group "$3" & wait',
        pythonPath,
        helperScriptPath(),
        soffice.connection,
        String(group),
      ],
      { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, PYENV_VERSION: 'system' } },
    );
    const lines = createInterface({ input: shell.stdout });
    await new Promise<void>((resolve) => lines.on('line', (line) => line.includes('ready') && resolve()));
    process.kill(-group, 'SIGSTOP');
    const data = await sampleDocument('text.docx');
    const input = join(profile, 'in.docx');
    writeFileSync(input, data);
    const request = {
      id: 1,
      op: 'convert',
      input,
      output: join(profile, 'out.pdf'),
      inputFilter: 'MS Word 2007 XML',
      exportFilter: 'writer_pdf_Export',
      locale: 'en-US',
    };
    shell.stdin.write(`${JSON.stringify(request)}\n`);
    shell.kill('SIGKILL');
    const exit = await soffice.exited;
    expect(exit.signal).toBe('SIGKILL');
    shell.stdin.destroy();
    rmSync(profile, { recursive: true, force: true });
  });
});
