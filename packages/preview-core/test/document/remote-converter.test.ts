import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRemoteConverter } from '../../src/document/remote/remote-converter.js';
import { makePdf, pdfPageTexts } from '../../src/testing/pdf-samples.js';
import { describeDocumentConverterConformance } from '../../src/testing/vitest/document-converter-conformance.js';

// The adapter against a real HTTP server on loopback that speaks the Collabora convert-to protocol
// and can be told to misbehave. The conformance suite also runs against the server's own
// /cool/convert-to/pdf endpoint backed by LibreOffice (packages/server/test/preview).

type Behaviour = 'pdf' | '503' | '429' | '400' | '413' | 'html' | 'hang' | 'huge' | 'drop';

interface Received {
  readonly path: string;
  readonly lang: string | null;
  readonly fileName: string | undefined;
  readonly bytes: number;
}

let server: Server;
let baseUrl: string;
let script: Behaviour[] = [];
const received: Received[] = [];

async function readForm(request: IncomingMessage): Promise<FormData> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers = { 'content-type': request.headers['content-type'] ?? '' };
  return new Request('http://local/', { method: 'POST', headers, body: Buffer.concat(chunks) }).formData();
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method !== 'POST') return void response.writeHead(200).end('OK');
  const url = new URL(request.url ?? '/', 'http://local');
  const form = await readForm(request);
  const file = form.get('data');
  received.push({
    path: url.pathname,
    lang: url.searchParams.get('lang'),
    fileName: file instanceof File ? file.name : undefined,
    bytes: file instanceof File ? file.size : -1,
  });
  const behaviour = script.shift() ?? 'pdf';
  if (behaviour === 'hang') return;
  if (behaviour === 'drop') return void request.socket.destroy();
  if (behaviour === 'pdf' || behaviour === 'huge') {
    const pdf = await makePdf(behaviour === 'huge' ? 400 : 2);
    response.writeHead(200, { 'content-type': 'application/pdf' }).end(Buffer.from(pdf));
    return;
  }
  if (behaviour === 'html')
    return void response.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
  const headers = behaviour === '429' ? { 'retry-after': '7' } : {};
  response.writeHead(Number(behaviour), headers).end(`failure ${behaviour}`);
}

beforeAll(async () => {
  server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  script = [];
  received.length = 0;
});

const document = { data: new Uint8Array([80, 75, 3, 4, 0, 0]), type: 'docx' } as const;

describeDocumentConverterConformance('remote (loopback Collabora-compatible double)', {
  create: () => createRemoteConverter({ baseUrl }),
  sample: () => ({ ...document, firstPageText: 'Page 1' }),
  damaged: () => {
    script.push('400');
    return document.data;
  },
});

describe('remote converter protocol and failures', () => {
  const fast = () => createRemoteConverter({ baseUrl, retryDelayMs: 1, timeoutMs: 300 });

  it('posts the document as multipart field data to /cool/convert-to/pdf with lang', async () => {
    const pdf = await fast().convert({ ...document, locale: 'it-IT' });
    expect(await pdfPageTexts(pdf)).toEqual(['Page 1', 'Page 2']);
    expect(received).toEqual([
      { path: '/cool/convert-to/pdf', lang: 'it-IT', fileName: 'document.docx', bytes: 6 },
    ]);
  });

  it('retries a 503, a 429 and a dropped connection, then succeeds', async () => {
    script = ['503', '429'];
    const converter = fast();
    expect(await pdfPageTexts(await converter.convert(document))).toEqual(['Page 1', 'Page 2']);
    expect(received).toHaveLength(3);
    script = ['drop'];
    expect(await pdfPageTexts(await converter.convert(document))).toEqual(['Page 1', 'Page 2']);
    expect(received).toHaveLength(5);
  });

  it('gives up after the retries with CONVERTER_UNAVAILABLE and reports itself unavailable', async () => {
    script = ['503', '503', '503'];
    const converter = fast();
    await expect(converter.convert(document)).rejects.toMatchObject({ code: 'CONVERTER_UNAVAILABLE' });
    expect(received).toHaveLength(3);
    expect(converter.status()).toMatchObject({
      available: false,
      failures: 1,
      reason: expect.stringContaining('503'),
    });
    await converter.convert(document);
    expect(converter.status().available).toBe(true);
  });

  it('answers BUSY with the remote Retry-After when it stays at 429', async () => {
    script = ['429', '429', '429'];
    await expect(fast().convert(document)).rejects.toMatchObject({
      code: 'BUSY',
      details: { retryAfterSeconds: 7 },
    });
  });

  it('answers CONVERSION_TIMEOUT without retrying when the converter does not answer in time', async () => {
    script = ['hang'];
    await expect(fast().convert(document)).rejects.toMatchObject({
      code: 'CONVERSION_TIMEOUT',
      message: expect.stringContaining('within 300 ms'),
    });
    expect(received).toHaveLength(1);
  });

  it('does not retry a refused document: 400 is CONVERSION_FAILED, 413 INPUT_TOO_LARGE', async () => {
    script = ['400'];
    await expect(fast().convert(document)).rejects.toMatchObject({ code: 'CONVERSION_FAILED' });
    script = ['413'];
    await expect(fast().convert(document)).rejects.toMatchObject({ code: 'INPUT_TOO_LARGE' });
    expect(received).toHaveLength(2);
  });

  it('refuses an answer that is not a PDF or is larger than maxOutputBytes', async () => {
    script = ['html'];
    await expect(fast().convert(document)).rejects.toMatchObject({ code: 'CONVERSION_FAILED' });
    script = ['huge'];
    const small = createRemoteConverter({ baseUrl, maxOutputBytes: 10_000 });
    await expect(small.convert(document)).rejects.toMatchObject({
      code: 'CONVERSION_FAILED',
      message: expect.stringContaining('more than 10000 bytes'),
    });
  });

  it('answers CONVERTER_UNAVAILABLE when nothing listens at the address', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const converter = createRemoteConverter({
      baseUrl: `http://127.0.0.1:${port}`,
      retries: 1,
      retryDelayMs: 1,
    });
    await expect(converter.convert(document)).rejects.toMatchObject({
      code: 'CONVERTER_UNAVAILABLE',
      message: expect.stringContaining('cannot be reached (ECONNREFUSED)'),
    });
  });
});

describe('remote converter probe', () => {
  it('reports reachable as available and a closed port as unavailable with the reason', async () => {
    expect((await createRemoteConverter({ baseUrl }).probe?.())?.available).toBe(true);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const status = await createRemoteConverter({ baseUrl: `http://127.0.0.1:${port}` }).probe?.();
    expect(status).toMatchObject({ available: false, reason: expect.stringContaining('ECONNREFUSED') });
  });
});
