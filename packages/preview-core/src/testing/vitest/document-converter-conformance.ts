import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentConverter } from '../../document/document-converter.js';
import type { DocumentType } from '../../document/document-type.js';
import { PreviewError } from '../../errors.js';
import { loadMupdf } from '../../pdf/mupdf-module.js';

/** A document for the conformance suite and a text the first page of its PDF contains. */
export interface ConformanceSample {
  readonly data: Uint8Array;
  readonly type: DocumentType;
  readonly firstPageText: string;
}

/** What {@link describeDocumentConverterConformance} needs to test one adapter. */
export interface DocumentConverterFixture {
  /** Creates the converter under test; the suite closes it. */
  create(): DocumentConverter | Promise<DocumentConverter>;
  /** A document the converter must convert. */
  sample(): ConformanceSample | Promise<ConformanceSample>;
  /** A document of the sample's type the converter must refuse; omit for fakes that convert anything. */
  damaged?(): Uint8Array | Promise<Uint8Array>;
}

async function firstPageText(pdf: Uint8Array): Promise<{ pages: number; text: string }> {
  const mupdf = await loadMupdf();
  const document = mupdf.Document.openDocument(pdf, 'application/pdf');
  try {
    const page = document.loadPage(0);
    const text = page.toStructuredText('preserve-whitespace');
    const result = { pages: document.countPages(), text: text.asText() };
    text.destroy();
    page.destroy();
    return result;
  } finally {
    document.destroy();
  }
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the conversion to fail');
}

/**
 * The behaviour every {@link DocumentConverter} adapter shares: conversion to a readable PDF, locale
 * checking, abort, status counters, concurrent use and `close()`. Call it inside a vitest file.
 */
export function describeDocumentConverterConformance(name: string, fixture: DocumentConverterFixture): void {
  describe(`DocumentConverter conformance: ${name}`, () => {
    let converter: DocumentConverter;
    let sample: ConformanceSample;

    beforeAll(async () => {
      converter = await fixture.create();
      sample = await fixture.sample();
    });
    afterAll(async () => {
      await converter?.close();
    });

    it('converts a document into a PDF whose first page has the expected text', async () => {
      const pdf = await converter.convert({ data: sample.data, type: sample.type });
      expect(Buffer.from(pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
      const { pages, text } = await firstPageText(pdf);
      expect(pages).toBeGreaterThanOrEqual(1);
      expect(text).toContain(sample.firstPageText);
    });

    it('accepts a locale and refuses a malformed one with INVALID_OPTION', async () => {
      const pdf = await converter.convert({ data: sample.data, type: sample.type, locale: 'de-DE' });
      expect(pdf.byteLength).toBeGreaterThan(0);
      const error = await failure(
        converter.convert({ data: sample.data, type: sample.type, locale: 'not a locale' }),
      );
      expect(error).toBeInstanceOf(PreviewError);
      expect((error as PreviewError).code).toBe('INVALID_OPTION');
    });

    it('rejects at once when the signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort(new Error('caller went away'));
      const error = await failure(
        converter.convert({ data: sample.data, type: sample.type, signal: controller.signal }),
      );
      expect((error as Error).message).toBe('caller went away');
    });

    it('converts two documents at the same time', async () => {
      const results = await Promise.all([
        converter.convert({ data: sample.data, type: sample.type }),
        converter.convert({ data: sample.data, type: sample.type }),
      ]);
      for (const pdf of results) expect((await firstPageText(pdf)).text).toContain(sample.firstPageText);
    });

    it('reports itself available and counts conversions', () => {
      const status = converter.status();
      expect(status.name).not.toBe('');
      expect(status.available).toBe(true);
      expect(status.conversions).toBeGreaterThanOrEqual(4);
      expect(status.instances).toBeGreaterThanOrEqual(1);
    });

    if (fixture.damaged) {
      const damaged = fixture.damaged;
      it('refuses a damaged document with CONVERSION_FAILED', async () => {
        const error = await failure(converter.convert({ data: await damaged(), type: sample.type }));
        expect((error as PreviewError).code).toBe('CONVERSION_FAILED');
      });
    }

    it('closes idempotently and then answers CONVERTER_UNAVAILABLE', async () => {
      const own = await fixture.create();
      await own.close();
      await own.close();
      const error = await failure(own.convert({ data: sample.data, type: sample.type }));
      expect((error as PreviewError).code).toBe('CONVERTER_UNAVAILABLE');
      expect(own.status().available).toBe(false);
    });
  });
}
