import {
  docxZipBomb,
  imageFacts,
  makeZip,
  pdfPageTexts,
  SAMPLE_DOCUMENTS,
  sampleDocument,
} from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthDependency, startTestServer, type TestServer } from '../support/test-server.js';
import { bodyBytes, detailOf, storeFile, upload } from './preview-test-support.js';

// Real LibreOffice behind the routes: one warm instance (the machine has 2 cores).

const ref = { id: '5c9d2e1f-3a4b-4c5d-8e6f-7a8b9c0d1e2f', version: 1, serviceType: 'files' } as const;

interface ConverterDetails {
  name: string;
  available: boolean;
  instances: number;
  busy: number;
  restarts: number;
  conversions: number;
  cache: { entries: number; hits: number };
}

describe('document routes with a warm LibreOffice pool', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      env: { DOCUMENT_CONVERTER: 'libreoffice', LIBREOFFICE_INSTANCES: '1' },
    });
    await storeFile(server.config.storage.directory, ref, await sampleDocument('spreadsheet.xlsx'));
  });
  afterAll(() => server.stop());

  async function converterDetails(): Promise<ConverterDetails> {
    return (await healthDependency<ConverterDetails>(server.url, 'document-converter')).details;
  }

  for (const sample of SAMPLE_DOCUMENTS) {
    it(`POST /preview/document/ converts ${sample.name} (named .bin) into ${sample.pages} PDF pages`, async () => {
      const response = await upload(`${server.url}/preview/document/`, await sampleDocument(sample.name));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/pdf');
      expect(await pdfPageTexts(await bodyBytes(response))).toHaveLength(sample.pages);
    });
  }

  it('selects pages of the converted document and passes the locale', async () => {
    const data = await sampleDocument('spreadsheet.ods');
    const response = await upload(
      `${server.url}/preview/document/?first_page=1&last_page=1&locale=de-DE`,
      data,
    );
    const pages = await pdfPageTexts(await bodyBytes(response));
    expect(pages).toHaveLength(1);
    expect(pages[0]).toContain('1.234,50');
    const tagged = await upload(`${server.url}/preview/document/?last_page=1&lang_tag=en-US`, data);
    expect((await pdfPageTexts(await bodyBytes(tagged)))[0]).toContain('1,234.50');
  });

  it('POST /preview/document/{area}/thumbnail/ renders the first page', async () => {
    const response = await upload(
      `${server.url}/preview/document/160x120/thumbnail/?output_format=png`,
      await sampleDocument('presentation.pptx'),
    );
    expect(response.status).toBe(200);
    expect(await imageFacts(await bodyBytes(response))).toMatchObject({
      format: 'png',
      width: 160,
      height: 120,
    });
  });

  it('answers 400 for content that is not one of the nine types, whatever its name', async () => {
    const text = await upload(`${server.url}/preview/document/`, Buffer.from('just text'), {
      fileName: 'letter.docx',
    });
    expect(text.status).toBe(400);
    expect(await detailOf(text)).toContain(
      'expected a doc, docx, odt, xls, xlsx, ods, ppt, pptx or odp document',
    );
    const zip = await upload(`${server.url}/preview/document/`, makeZip([{ name: 'a.txt', data: 'a' }]));
    expect(zip.status).toBe(400);
  });

  it('answers 400 for a small zip bomb named .docx, and keeps serving', async () => {
    const response = await upload(`${server.url}/preview/document/`, docxZipBomb(1024), {
      fileName: 'bomb.docx',
    });
    expect(response.status).toBe(400);
    expect(await detailOf(response)).toContain('refused the zip container');
    const next = await upload(`${server.url}/preview/document/`, await sampleDocument('text.odt'));
    expect(next.status).toBe(200);
  });

  it('answers 400 naming the password for doc and xls files saved with one, without converting them', async () => {
    const before = (await converterDetails()).conversions;
    for (const name of ['protected-text.doc', 'protected-spreadsheet.xls']) {
      const response = await upload(`${server.url}/preview/document/`, await sampleDocument(name));
      expect(response.status).toBe(400);
      expect(await detailOf(response)).toMatch(
        /^the (Word|Excel) 97-2003 document is protected by a password/,
      );
      const thumbnail = await upload(
        `${server.url}/preview/document/64x64/thumbnail/`,
        await sampleDocument(name),
      );
      expect(thumbnail.status).toBe(400);
    }
    expect((await converterDetails()).conversions).toBe(before);
  });

  it('answers 400 for a document LibreOffice cannot open and for a first_page past the end', async () => {
    const damaged = (await sampleDocument('text.docx')).slice();
    damaged.fill(0x41, 100, 1500);
    expect((await upload(`${server.url}/preview/document/`, damaged)).status).toBe(400);
    const pastEnd = await upload(
      `${server.url}/preview/document/?first_page=9`,
      await sampleDocument('text.odt'),
    );
    expect(pastEnd.status).toBe(400);
    expect(await detailOf(pastEnd)).toContain('the document has 3 pages');
  });

  it('converts page 1 alone for the thumbnail of a spreadsheet, a named range alone and the rest whole once, with ETags', async () => {
    const { conversions: before, cache: cacheBefore } = await converterDetails();
    const base = `${server.url}/preview/document/${ref.id}/${ref.version}`;
    const thumbnail = await fetch(`${base}/100x100/thumbnail/?service_type=files`);
    expect(thumbnail.status).toBe(200);
    const first = await fetch(`${base}/?service_type=files&first_page=1&last_page=1`);
    const clamped = await fetch(`${base}/?service_type=files&first_page=3&last_page=9`);
    expect(await pdfPageTexts(await bodyBytes(first))).toHaveLength(1);
    const lastPages = await pdfPageTexts(await bodyBytes(clamped));
    expect(lastPages).toHaveLength(1);
    expect(lastPages[0]).toContain('Sheet East');
    const pastEnd = await fetch(`${base}/?service_type=files&first_page=4&last_page=4`);
    expect(pastEnd.status).toBe(400);
    expect(await detailOf(pastEnd)).toContain('the document has 3 pages');
    // Page 1 for the thumbnail, then each named range alone (its printed pages counted first).
    expect((await converterDetails()).conversions - before).toBe(4);
    const rest = await fetch(`${base}/?service_type=files&first_page=2`);
    expect(await pdfPageTexts(await bodyBytes(rest))).toHaveLength(2);
    // Once the whole spreadsheet is converted, any range is taken from it.
    const middle = await fetch(`${base}/?service_type=files&first_page=2&last_page=2`);
    expect(await pdfPageTexts(await bodyBytes(middle))).toHaveLength(1);
    const details = await converterDetails();
    expect(details.conversions - before).toBe(5);
    expect(details.cache.entries - cacheBefore.entries).toBe(5);
    const etag = first.headers.get('etag') ?? '';
    const cached = await fetch(`${base}/?service_type=files&first_page=1&last_page=1`, {
      headers: { 'If-None-Match': etag },
    });
    expect(cached.status).toBe(304);
    expect((await fetch(`${server.url}/preview/document/${ref.id}/7/?service_type=files`)).status).toBe(404);
  });

  it('POST /preview/document/ converts only the named pages of a ~200-page spreadsheet, clamping the end', async () => {
    const sheet = await sampleDocument('long-sheet.xlsx');
    const pastEnd = await upload(`${server.url}/preview/document/?first_page=5000&last_page=5000`, sheet);
    expect(pastEnd.status).toBe(400);
    const count = Number(/the document has (\d+) pages/.exec(await detailOf(pastEnd))?.[1]);
    expect(count).toBeGreaterThan(150);
    const last = await upload(
      `${server.url}/preview/document/?first_page=${count - 1}&last_page=${count + 10}`,
      sheet,
    );
    expect(last.status).toBe(200);
    const pages = await pdfPageTexts(await bodyBytes(last));
    expect(pages).toHaveLength(2);
    expect(pages[0]).toContain('Sheet South');
    expect(pages[1]).toContain('Sheet East');
    const thumbnail = await upload(`${server.url}/preview/document/64x64/thumbnail/`, sheet);
    expect(thumbnail.status).toBe(200);
  });

  it('shows the converter state in /health/ and answers /health/ready/ with 200', async () => {
    const details = await converterDetails();
    expect(details).toMatchObject({
      name: 'libreoffice',
      available: true,
      instances: 1,
      busy: 0,
      restarts: 0,
    });
    expect((await fetch(`${server.url}/health/ready/`)).status).toBe(200);
  });
});

describe('page ranges of stored text documents and presentations', () => {
  let server: TestServer;
  const deck = { id: '0d1c2b3a-4f5e-4d6c-9b8a-7f6e5d4c3b2a', version: 1, serviceType: 'files' } as const;

  beforeAll(async () => {
    server = await startTestServer({
      env: { DOCUMENT_CONVERTER: 'libreoffice', LIBREOFFICE_INSTANCES: '1' },
    });
    await storeFile(server.config.storage.directory, deck, await sampleDocument('presentation.pptx'));
  });
  afterAll(() => server.stop());

  it('converts only the asked slides, clamps the end and refuses a first page past the end', async () => {
    const base = `${server.url}/preview/document/${deck.id}/${deck.version}/?service_type=files`;
    const third = await fetch(`${base}&first_page=3&last_page=9`);
    expect(third.status).toBe(200);
    const pages = await pdfPageTexts(await bodyBytes(third));
    expect(pages).toHaveLength(2);
    expect(pages[0]).toContain('Slide three Foxtrot');
    const pastEnd = await fetch(`${base}&first_page=6&last_page=7`);
    expect(pastEnd.status).toBe(400);
    expect(await detailOf(pastEnd)).toContain('the document has 4 pages');
  });
});
