import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectDocumentType } from '../../src/document/detect-document-type.js';
import { PreviewError } from '../../src/errors.js';
import { DOCX_CONTENT_TYPES, makeCompoundFile, makeZip } from '../../src/testing/container-samples.js';
import { sampleDocument } from '../../src/testing/sample-documents.js';

const LIMITS = { maxEntries: 10_000, maxUncompressedBytes: 64 * 1024 * 1024, maxCompressionRatio: 200 };
/** Bounded for CI (about a second in all here); FUZZ_RUNS=100000 for a longer search. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);

/** Either a document type or a PreviewError: any other throw, or a hang, is a defect. */
async function outcomeOf(bytes: Uint8Array): Promise<string> {
  try {
    return await detectDocumentType(bytes, LIMITS);
  } catch (error) {
    if (error instanceof PreviewError) return error.code;
    throw error;
  }
}

/** `base` with `edits` applied: each overwrites one byte, then the bytes may be cut short. */
const mutated = (base: Uint8Array) =>
  fc
    .record({
      edits: fc.array(
        fc.record({ at: fc.nat({ max: base.byteLength - 1 }), value: fc.integer({ min: 0, max: 255 }) }),
        {
          maxLength: 24,
        },
      ),
      cut: fc.option(fc.nat({ max: base.byteLength }), { nil: undefined }),
    })
    .map(({ edits, cut }) => {
      const bytes = Uint8Array.from(base);
      for (const { at, value } of edits) bytes[at] = value;
      return cut === undefined ? bytes : bytes.subarray(0, cut);
    });

/**
 * Property tests of the zip and OLE2 readers, which read untrusted uploads: whatever bytes come,
 * detection answers a type or a PreviewError, never another error, and never hangs.
 */
describe('container readers on mutated input (fast-check)', () => {
  it('read a mutated zip (a real docx and a built one) to a type or a PreviewError', async () => {
    const docx = await sampleDocument('text.docx');
    const built = makeZip([
      { name: '[Content_Types].xml', data: DOCX_CONTENT_TYPES },
      { name: 'word/document.xml', data: '<w:document/>'.repeat(50) },
    ]);
    for (const base of [docx, built]) {
      await fc.assert(
        fc.asyncProperty(mutated(base), async (bytes) => {
          expect(typeof (await outcomeOf(bytes))).toBe('string');
        }),
        { numRuns: RUNS },
      );
    }
  }, 120_000);

  it('reads a mutated OLE2 compound file to a type or a PreviewError', async () => {
    const base = makeCompoundFile([
      'WordDocument',
      '1Table',
      { name: 'Data', data: new Uint8Array(3000).fill(7) },
    ]);
    await fc.assert(
      fc.asyncProperty(mutated(base), async (bytes) => {
        expect(typeof (await outcomeOf(bytes))).toBe('string');
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('reads arbitrary bytes behind a zip or OLE2 signature to a type or a PreviewError', async () => {
    const signatures = [
      Uint8Array.of(0x50, 0x4b, 0x03, 0x04),
      Uint8Array.of(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...signatures),
        fc.uint8Array({ maxLength: 4096 }),
        async (signature, rest) => {
          const bytes = new Uint8Array(signature.byteLength + rest.byteLength);
          bytes.set(signature);
          bytes.set(rest, signature.byteLength);
          expect(typeof (await outcomeOf(bytes))).toBe('string');
        },
      ),
      { numRuns: RUNS },
    );
  }, 120_000);
});
