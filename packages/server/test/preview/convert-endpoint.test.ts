import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteConverter } from '@collab-suite/preview-core';
import {
  DOCX_CONTENT_TYPES,
  makeZip,
  pdfPageTexts,
  sampleDocument,
} from '@collab-suite/preview-core/testing';
import { describeDocumentConverterConformance } from '@collab-suite/preview-core/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchHealth, startTestServer, type TestServer } from '../support/test-server.js';
import { bodyBytes, detailOf, upload } from './preview-test-support.js';

// One node converts for others: a server with DOCUMENT_CONVERT_ENDPOINT=true (real LibreOffice, one
// instance) answers POST /cool/convert-to/pdf; the remote adapter and a second server use it.

let converterNode: TestServer;

beforeAll(async () => {
  converterNode = await startTestServer({
    env: { DOCUMENT_CONVERTER: 'libreoffice', LIBREOFFICE_INSTANCES: '1', DOCUMENT_CONVERT_ENDPOINT: 'true' },
  });
});
afterAll(() => converterNode.stop());

describeDocumentConverterConformance('remote adapter against the server /cool/convert-to/pdf', {
  create: () => createRemoteConverter({ baseUrl: converterNode.url }),
  sample: async () => ({
    data: await sampleDocument('text.docx'),
    type: 'docx',
    firstPageText: 'Alpha page one',
  }),
  damaged: () =>
    makeZip([
      { name: '[Content_Types].xml', data: DOCX_CONTENT_TYPES },
      { name: 'word/document.xml', data: '<<< not XML' },
    ]),
});

describe('POST /cool/convert-to/{format}', () => {
  it('converts the multipart field data to PDF, with lang as the locale', async () => {
    const response = await upload(
      `${converterNode.url}/cool/convert-to/pdf?lang=de-DE`,
      await sampleDocument('spreadsheet.xls'),
      {
        field: 'data',
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    const pages = await pdfPageTexts(await bodyBytes(response));
    expect(pages).toHaveLength(3);
    expect(pages[0]).toContain('1.234,50');
  });

  it('answers 400 for another target format and for content that is not a document', async () => {
    const png = await upload(`${converterNode.url}/cool/convert-to/png`, await sampleDocument('text.docx'), {
      field: 'data',
    });
    expect(png.status).toBe(400);
    expect(await detailOf(png)).toContain('expected the target format pdf');
    const text = await upload(`${converterNode.url}/cool/convert-to/pdf`, Buffer.from('hello'), {
      field: 'data',
    });
    expect(text.status).toBe(400);
  });

  it('is described in /openapi.json when enabled, and absent (404) by default', async () => {
    const document = (await (await fetch(`${converterNode.url}/openapi.json`)).json()) as { paths: object };
    expect(Object.keys(document.paths)).toContain('/cool/convert-to/{format}');
    const plain = await startTestServer();
    try {
      const response = await upload(`${plain.url}/cool/convert-to/pdf`, Buffer.from('x'), { field: 'data' });
      expect(response.status).toBe(404);
    } finally {
      await plain.stop();
    }
  });
});

describe('a server whose DOCUMENT_CONVERTER is remote', () => {
  let previewNode: TestServer;

  beforeAll(async () => {
    previewNode = await startTestServer({
      env: { DOCUMENT_CONVERTER: 'remote', DOCUMENT_CONVERTER_URL: converterNode.url },
    });
  });
  afterAll(() => previewNode.stop());

  it('previews documents through the other node', async () => {
    const response = await upload(
      `${previewNode.url}/preview/document/?first_page=2`,
      await sampleDocument('presentation.odp'),
    );
    expect(response.status).toBe(200);
    const pages = await pdfPageTexts(await bodyBytes(response));
    expect(pages).toHaveLength(3);
    expect(pages[0]).toContain('Slide two Echo');
  });

  it('reports the remote converter in /health/', async () => {
    const health = (await (await fetchHealth(previewNode.url)).json()) as {
      dependencies: { name: string; ready: boolean; details: { name: string } }[];
    };
    expect(health.dependencies).toContainEqual(
      expect.objectContaining({
        name: 'document-converter',
        ready: true,
        details: expect.objectContaining({ name: 'remote' }),
      }),
    );
  });
});

describe('a server whose remote converter is down', () => {
  it('answers /health/ready/ with 429 and document requests with 503', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const node = await startTestServer({
      env: { DOCUMENT_CONVERTER: 'remote', DOCUMENT_CONVERTER_URL: `http://127.0.0.1:${port}` },
    });
    try {
      expect((await fetch(`${node.url}/health/ready/`)).status).toBe(429);
      const response = await upload(`${node.url}/preview/document/`, await sampleDocument('text.docx'));
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).not.toBeNull();
      expect(await detailOf(response)).toContain('cannot be reached');
    } finally {
      await node.stop();
    }
  });
});
