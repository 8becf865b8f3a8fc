import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfPageTexts } from '../../src/testing/pdf-samples.js';
import { makeWord6Document, pagedParagraphs } from '../../src/testing/word6-document.js';

// The generated Word 6/95 files against command-line LibreOffice (Debian's soffice), the reader
// that matters: left to detect the format it opens them; forced to "MS Word 97" it refuses them.

const run = promisify(execFile);
const SOFFICE = process.env.SOFFICE_PATH ?? 'soffice';
/** A cold soffice with a fresh profile on a shared 2-core machine. */
const SOFFICE_TIMEOUT_MS = 180_000;

const SHORT = ['Word six sample opening line', 'Second paragraph, café au lait', 'Closing line'];
const FLOWING = Array.from(
  { length: 200 },
  (_, index) => `Flowing paragraph number ${index + 1} of two hundred.`,
);

const INPUTS = {
  'word6.doc': makeWord6Document({ paragraphs: SHORT, version: 'word6' }),
  'word95.doc': makeWord6Document({ paragraphs: SHORT, version: 'word95' }),
  'word95-flowing.doc': makeWord6Document({ paragraphs: FLOWING, version: 'word95' }),
  'word6-paged.doc': makeWord6Document({ paragraphs: pagedParagraphs(5, 40), version: 'word6' }),
};

let folder: string;

/** Converts `names` to PDF in one soffice run; `filter` forces an import filter. */
async function convert(names: readonly string[], outdir: string, filter?: string) {
  const args = [`-env:UserInstallation=file://${join(folder, 'profile')}`, '--headless', '--norestore'];
  if (filter) args.push(`--infilter=${filter}`);
  args.push(
    '--convert-to',
    'pdf',
    '--outdir',
    join(folder, outdir),
    ...names.map((name) => join(folder, name)),
  );
  return run(SOFFICE, args, { timeout: SOFFICE_TIMEOUT_MS });
}

async function pages(outdir: string, name: string): Promise<string[]> {
  return pdfPageTexts(await readFile(join(folder, outdir, name.replace(/\.doc$/, '.pdf'))));
}

describe('generated Word 6 and Word 95 documents in command-line LibreOffice', () => {
  let forced97: { stdout: string; stderr: string };

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'word6-documents-'));
    for (const [name, bytes] of Object.entries(INPUTS)) await writeFile(join(folder, name), bytes);
    await convert(Object.keys(INPUTS), 'detected');
    forced97 = await convert(['word6.doc', 'word95.doc'], 'forced-97', 'MS Word 97');
  }, 2 * SOFFICE_TIMEOUT_MS);

  afterAll(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  for (const name of ['word6.doc', 'word95.doc']) {
    it(`opens ${name} with the detected filter, every paragraph on one page`, async () => {
      const texts = await pages('detected', name);
      expect(texts).toHaveLength(1);
      expect(texts[0]?.split('\n')).toEqual(SHORT);
    });
  }

  it('flows 200 paragraphs of a Word 95 document over several pages, in order', async () => {
    const texts = await pages('detected', 'word95-flowing.doc');
    expect(texts.length).toBeGreaterThan(1);
    const lines = texts.flatMap((text) => text.split('\n'));
    expect(lines).toEqual(FLOWING);
  });

  it('breaks a Word 6 document into exactly the five pages its page breaks ask for', async () => {
    const texts = await pages('detected', 'word6-paged.doc');
    expect(texts).toHaveLength(5);
    texts.forEach((text, index) => {
      expect(text.startsWith(`Page ${index + 1} paragraph 1\n`)).toBe(true);
      expect(text.endsWith(`Page ${index + 1} paragraph 40`)).toBe(true);
    });
  });

  it('refuses both versions when forced to the "MS Word 97" filter: no PDF, "could not be loaded"', () => {
    expect(existsSync(join(folder, 'forced-97', 'word6.pdf'))).toBe(false);
    expect(existsSync(join(folder, 'forced-97', 'word95.pdf'))).toBe(false);
    expect(forced97.stderr).toContain('source file could not be loaded');
  });

  it(
    'opens both versions when forced to the "MS WinWord 6.0" filter',
    async () => {
      await convert(['word6.doc', 'word95.doc'], 'forced-6', 'MS WinWord 6.0');
      for (const name of ['word6.doc', 'word95.doc']) {
        expect((await pages('forced-6', name))[0]?.split('\n')).toEqual(SHORT);
      }
    },
    SOFFICE_TIMEOUT_MS,
  );
});
