import { type ClientRequest, type IncomingMessage, request } from 'node:http';
import { imageFacts, isNear, makePdf, pixelAt, solidImage } from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MULTIPART_FIELDS, MAX_MULTIPART_FILES } from '../../src/http/multipart.js';
import { createUploadBufferPool } from '../../src/http/upload-buffer-pool.js';
import { detailOf } from '../preview/preview-test-support.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const MAX_UPLOAD_BYTES = 256 * 1024;
const solidPng = (colour: readonly [number, number, number]) => solidImage(120, 120, colour);

interface Part {
  name: string;
  fileName?: string;
  data: Buffer | string;
}

const partHead = (boundary: string, part: Part) =>
  Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${part.fileName ? `; filename="${part.fileName}"` : ''}\r\n\r\n`,
  );

function multipart(boundary: string, parts: Part[]): Buffer {
  const pieces = parts.flatMap((part) => [
    partHead(boundary, part),
    Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data),
    Buffer.from('\r\n'),
  ]);
  return Buffer.concat([...pieces, Buffer.from(`--${boundary}--\r\n`)]);
}

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

function collect(response: IncomingMessage): Promise<Answer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () =>
      resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
    );
  });
}

/** Opens a POST and returns it unsent, with its answer; write errors after an early answer are ignored. */
function open(url: string, headers: Record<string, string | number>) {
  let outgoing: ClientRequest | undefined;
  const answer = new Promise<Answer>((resolve, reject) => {
    outgoing = request(url, { method: 'POST', headers }, (response) => resolve(collect(response)));
    outgoing.on('error', reject);
  });
  return { outgoing: outgoing as unknown as ClientRequest, answer };
}

/** Sends `body` raw, optionally chunked (no Content-Length) or announcing more bytes than sent. */
function send(
  url: string,
  body: Buffer,
  headers: Record<string, string | number>,
  mode: 'length' | 'chunked' | 'cut' = 'length',
): Promise<Answer> {
  const length: Record<string, number> =
    mode === 'chunked' ? {} : { 'content-length': mode === 'cut' ? body.length + 500 : body.length };
  const { outgoing, answer } = open(url, { ...headers, ...length });
  if (mode === 'chunked') {
    outgoing.write(body.subarray(0, 100));
    outgoing.end(body.subarray(100));
  } else if (mode === 'cut') {
    answer.catch(() => undefined);
    outgoing.write(body);
    setTimeout(() => outgoing.destroy(), 100);
    return new Promise((resolve) =>
      outgoing.on('close', () => resolve({ status: 0, headers: {}, body: Buffer.alloc(0) })),
    );
  } else outgoing.end(body);
  return answer;
}

/** The error message of a `{ detail }` body; for a 422 list, its messages joined by `; `. */
function detailText(answer: Answer): string {
  const body = JSON.parse(answer.body.toString()) as { detail: string | { msg: string }[] };
  return Array.isArray(body.detail) ? body.detail.map((issue) => issue.msg).join('; ') : body.detail;
}

/** The refusal of an upload past the limit: 413, the connection closed, the limit named. */
function expectTooLarge(refused: Answer): void {
  expect(refused.status).toBe(413);
  expect(refused.headers.connection).toBe('close');
  expect(detailText(refused)).toBe(`the uploaded file is larger than the limit of ${MAX_UPLOAD_BYTES} bytes`);
}

const form = (boundary = 'xyz') => ({ 'content-type': `multipart/form-data; boundary=${boundary}` });

describe('the upload reader (busboy), through the image and PDF upload routes', () => {
  let server: TestServer;
  let red: Buffer;
  beforeAll(async () => {
    server = await startTestServer({ env: { PREVIEW_MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES) } });
    red = await solidPng([255, 0, 0]);
  });
  afterAll(() => server.stop());

  const url = () => `${server.url}/preview/image/80x80/?output_format=png`;

  async function expectStillServing() {
    const answer = await send(
      url(),
      multipart('xyz', [{ name: 'file', fileName: 'red.png', data: red }]),
      form(),
    );
    expect(answer.status).toBe(200);
    expect(await pixelAt(answer.body, 40, 40)).toEqual([255, 0, 0, 255]);
  }

  it('finds the file field after other fields, with a quoted boundary', async () => {
    const body = multipart('a b:c', [
      { name: 'note', data: 'hello\r\n--not-the-boundary' },
      { name: 'file', fileName: 'red.png', data: red },
      { name: 'after', data: 'tail' },
    ]);
    const answer = await send(url(), body, { 'content-type': 'multipart/form-data; boundary="a b:c"' });
    expect(answer.status).toBe(200);
    expect(await pixelAt(answer.body, 40, 40)).toEqual([255, 0, 0, 255]);
  });

  it('takes the first file part named file and ignores a second one', async () => {
    const blue = await solidPng([0, 0, 255]);
    const body = multipart('xyz', [
      { name: 'file', fileName: 'red.png', data: red },
      { name: 'file', fileName: 'blue.png', data: blue },
    ]);
    const answer = await send(url(), body, form());
    expect(answer.status).toBe(200);
    expect(await pixelAt(answer.body, 40, 40)).toEqual([255, 0, 0, 255]);
  });

  it('answers 400 naming the limit when a body has more file parts or fields than it takes', async () => {
    const others = (count: number, fileName?: string) =>
      Array.from({ length: count }, (_, index) => ({
        name: `other${index}`,
        ...(fileName ? { fileName } : {}),
        data: 'x',
      }));
    const tooManyFiles = multipart('xyz', [
      ...others(MAX_MULTIPART_FILES, 'other.bin'),
      { name: 'file', fileName: 'red.png', data: red },
    ]);
    const files = await send(url(), tooManyFiles, form());
    expect(files.status).toBe(400);
    expect(detailText(files)).toBe(
      `expected at most ${MAX_MULTIPART_FILES} file parts in the multipart body but received more`,
    );
    const tooManyFields = multipart('xyz', [
      ...others(MAX_MULTIPART_FIELDS + 1),
      { name: 'file', fileName: 'red.png', data: red },
    ]);
    const fields = await send(url(), tooManyFields, form());
    expect(fields.status).toBe(400);
    expect(detailText(fields)).toContain(`at most ${MAX_MULTIPART_FIELDS} fields`);
    // At the limits the upload is read.
    const atLimits = multipart('xyz', [
      ...others(MAX_MULTIPART_FILES - 1, 'other.bin'),
      ...others(MAX_MULTIPART_FIELDS),
      { name: 'file', fileName: 'red.png', data: red },
    ]);
    expect((await send(url(), atLimits, form())).status).toBe(200);
    await expectStillServing();
  });

  it('accepts a chunked body without Content-Length', async () => {
    const body = multipart('xyz', [{ name: 'file', fileName: 'red.png', data: red }]);
    const answer = await send(url(), body, form(), 'chunked');
    expect(answer.status).toBe(200);
    expect(await imageFacts(answer.body)).toMatchObject({ width: 80, height: 80 });
  });

  it('ignores a text field named file and answers 422 without a file part', async () => {
    const answer = await send(url(), multipart('xyz', [{ name: 'file', data: 'just text' }]), form());
    expect(answer.status).toBe(422);
    expect(detailText(answer)).toBe('the multipart body has no "file" file field');
  });

  it('answers 400 for a body whose framing is broken', async () => {
    const body = Buffer.from(
      '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nno closing delimiter',
    );
    const answer = await send(url(), body, form());
    expect(answer.status).toBe(400);
    expect(detailText(answer)).toBe('the multipart body is malformed or was cut short');
  });

  it('answers 400 when the body ends inside a part that is not the file, and keeps serving', async () => {
    const body = Buffer.concat([
      multipart('xyz', [{ name: 'file', fileName: 'red.png', data: red }]).subarray(0, -'--xyz--\r\n'.length),
      Buffer.from('--xyz\r\nContent-Disposition: form-data; name="other"; filename="b.bin"\r\n\r\ncut here'),
    ]);
    const answer = await send(url(), body, form());
    expect(answer.status).toBe(400);
    expect(detailText(answer)).toBe('the multipart body is malformed or was cut short');
    await expectStillServing();
  });

  it('answers 422 (no file) for a part whose headers never end: such a part carries no file', async () => {
    const body = Buffer.from(
      `--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n--xyz--\r\n`,
    );
    const answer = await send(url(), body, form());
    expect(answer.status).toBe(422);
    expect(detailText(answer)).toBe('the multipart body has no "file" file field');
    await expectStillServing();
  });

  it('answers 422 for a multipart content type without a boundary', async () => {
    const response = await fetch(url(), {
      method: 'POST',
      body: 'x',
      headers: { 'content-type': 'multipart/form-data' },
    });
    expect(response.status).toBe(422);
    expect(await detailOf(response)).toContain('no boundary');
  });

  it('answers 413 with Connection: close before reading a body declared too large', async () => {
    const { outgoing, answer } = open(url(), { ...form(), 'content-length': 10 * 1024 * 1024 });
    outgoing.flushHeaders();
    const refused = await answer;
    outgoing.destroy();
    expectTooLarge(refused);
    await expectStillServing();
  });

  it('answers 413 with Connection: close as soon as a chunked file passes the limit', async () => {
    const { outgoing, answer } = open(url(), form());
    outgoing.on('error', () => undefined);
    outgoing.write(partHead('xyz', { name: 'file', fileName: 'big.bin', data: '' }));
    // The body never ends: only a refusal past the limit can answer.
    for (let sent = 0; sent <= MAX_UPLOAD_BYTES; sent += 16 * 1024)
      outgoing.write(Buffer.alloc(16 * 1024, 7));
    const refused = await answer;
    outgoing.destroy();
    expectTooLarge(refused);
    await expectStillServing();
  });

  it('answers 413 when other parts of a chunked body pass the limit plus 64 KiB of framing', async () => {
    const { outgoing, answer } = open(url(), form());
    outgoing.on('error', () => undefined);
    const filler = Buffer.alloc(200 * 1024, 'a');
    for (let part = 0; part < 2; part += 1) {
      outgoing.write(
        Buffer.concat([partHead('xyz', { name: `other${part}`, fileName: 'x.bin', data: '' }), filler]),
      );
      outgoing.write('\r\n');
    }
    const refused = await answer;
    outgoing.destroy();
    expectTooLarge(refused);
    await expectStillServing();
  });

  it('survives a client that stops sending mid-body, and keeps serving', async () => {
    const body = multipart('xyz', [{ name: 'file', fileName: 'red.png', data: red }]);
    await send(url(), body, form(), 'cut');
    await expectStillServing();
  });

  it('keeps concurrent uploads apart while reusing buffers', async () => {
    const colours = [
      [255, 0, 0],
      [0, 255, 0],
      [0, 0, 255],
      [255, 255, 0],
      [0, 255, 255],
      [255, 0, 255],
    ] as const;
    const images = await Promise.all(colours.map((colour) => solidPng(colour)));
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.all(
        images.map((image) =>
          send(url(), multipart('xyz', [{ name: 'file', fileName: 'c.png', data: image }]), form()),
        ),
      );
      for (const [index, answer] of answers.entries()) {
        const colour = colours[index] ?? [0, 0, 0];
        expect(isNear(await pixelAt(answer.body, 40, 40), [...colour, 255])).toBe(true);
      }
    }
  });

  it('reads PDF uploads with the same reader: same bytes back, same refusals', async () => {
    const pdfUrl = `${server.url}/preview/pdf/`;
    const pdf = Buffer.from(await makePdf(2));
    const accepted = await send(
      pdfUrl,
      multipart('xyz', [{ name: 'file', fileName: 'two.pdf', data: pdf }]),
      form(),
    );
    expect(accepted.status).toBe(200);
    expect(Buffer.compare(accepted.body, pdf)).toBe(0);
    const other = await send(
      pdfUrl,
      multipart('xyz', [{ name: 'doc', fileName: 'two.pdf', data: pdf }]),
      form(),
    );
    expect(other.status).toBe(422);
    expect(detailText(other)).toBe('the multipart body has no "file" file field');
    const notMultipart = await send(pdfUrl, pdf, { 'content-type': 'application/pdf' });
    expect(notMultipart.status).toBe(422);
    expect(detailText(notMultipart)).toBe('expected a multipart/form-data body with a "file" field');
    const tooLarge = await send(
      pdfUrl,
      multipart('xyz', [{ name: 'file', fileName: 'big.pdf', data: Buffer.alloc(MAX_UPLOAD_BYTES + 1) }]),
      form(),
    );
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.connection).toBe('close');
  });
});

describe('createUploadBufferPool', () => {
  it('lends exact-size views and reuses a released buffer of the same size class', () => {
    const pool = createUploadBufferPool();
    const first = pool.take(1500_000);
    expect(first.length).toBe(1500_000);
    const backing = first.buffer;
    pool.release(first);
    const second = pool.take(1200_000);
    expect(second.buffer).toBe(backing);
    expect(pool.take(1200_000).buffer).not.toBe(backing);
  });

  it('does not keep buffers above maxPooledBytes nor past maxIdleBytes', () => {
    const pool = createUploadBufferPool({ maxPooledBytes: 2 * 1024 * 1024, maxIdleBytes: 2 * 1024 * 1024 });
    const large = pool.take(3 * 1024 * 1024);
    pool.release(large);
    expect(pool.take(3 * 1024 * 1024).buffer).not.toBe(large.buffer);
    const a = pool.take(2 * 1024 * 1024);
    const b = pool.take(2 * 1024 * 1024);
    pool.release(a);
    pool.release(b);
    expect(pool.take(2 * 1024 * 1024).buffer).toBe(a.buffer);
    expect(pool.take(2 * 1024 * 1024).buffer).not.toBe(b.buffer);
  });

  it('ignores buffers it did not lend and double releases', () => {
    const pool = createUploadBufferPool();
    pool.release(Buffer.alloc(10));
    const lent = pool.take(10);
    pool.release(lent);
    pool.release(lent);
    expect(pool.take(10).buffer).toBe(lent.buffer);
    expect(pool.take(10).buffer).not.toBe(lent.buffer);
  });
});
