import {
  damageCompoundFile,
  ODF_VARIANT_DOCUMENTS,
  pdfPageTexts,
  sampleDocument,
} from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { bodyBytes, upload } from './preview-test-support.js';

// Real LibreOffice behind the routes: one warm instance (the machine has 2 cores). The inputs are
// written by LibreOffice itself (see preview-core's test/fixtures/generate.mjs), then damaged here.

/** What the first page of each variant reads, from the sources in preview-core's test/fixtures. */
const FIRST_PAGE_TEXT: Readonly<Record<string, string>> = {
  'text.ott': 'Alpha page one',
  'spreadsheet.ots': 'Sheet North',
  'presentation.otp': 'Slide one Delta',
  'web.oth': 'Web page',
  'master.odm': 'Master document',
  'master.otm': 'Master document',
};

describe('document routes accept what LibreOffice opens', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      env: { DOCUMENT_CONVERTER: 'libreoffice', LIBREOFFICE_INSTANCES: '1' },
    });
  });
  afterAll(() => server.stop());

  for (const variant of ODF_VARIANT_DOCUMENTS) {
    it(`POST /preview/document/ converts ${variant.name} (${variant.mediaType.split('.').pop()})`, async () => {
      const response = await upload(`${server.url}/preview/document/`, await sampleDocument(variant.name));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/pdf');
      const pages = await pdfPageTexts(await bodyBytes(response));
      expect(pages[0]).toContain(FIRST_PAGE_TEXT[variant.name]);
    });
  }

  for (const damage of [
    'truncated',
    'extra-fat-sector',
    'stream-longer-than-chain',
    'sibling-to-missing-entry',
  ] as const) {
    it(`POST /preview/document/ converts an xls with damage "${damage}" into its 3 pages`, async () => {
      const damaged = damageCompoundFile(await sampleDocument('spreadsheet.xls'), damage);
      const response = await upload(`${server.url}/preview/document/`, damaged, { fileName: 'damaged.xls' });
      expect(response.status).toBe(200);
      expect(await pdfPageTexts(await bodyBytes(response))).toHaveLength(3);
    });
  }
});
