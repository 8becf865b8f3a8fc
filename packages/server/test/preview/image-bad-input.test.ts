import { randomBytes } from 'node:crypto';
import { declaredSizePng, gradientJpeg, imageFacts } from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { bodyBytes, detailOf, upload } from './preview-test-support.js';

describe('bad input to the image routes: a 4xx with a clear message, and the server keeps serving', () => {
  let server: TestServer;
  let photo: Buffer;
  beforeAll(async () => {
    server = await startTestServer({ env: { PREVIEW_MAX_UPLOAD_BYTES: String(256 * 1024) } });
    photo = await gradientJpeg(640, 480);
  });
  afterAll(() => server.stop());

  const thumbnail = (area = '80x80') => `${server.url}/preview/image/${area}/thumbnail/`;

  async function expectStillServing() {
    const response = await upload(thumbnail(), photo);
    expect(response.status).toBe(200);
    expect(await imageFacts(await bodyBytes(response))).toMatchObject({ width: 80, height: 80 });
  }

  const cases: Array<[string, () => Promise<Response>, number, RegExp]> = [
    ['zero bytes', () => upload(thumbnail(), new Uint8Array(0)), 400, /received 0 bytes/],
    [
      'a JPEG cut off before its image data',
      () =>
        upload(thumbnail(), photo.subarray(0, photo.indexOf(Buffer.from([0xff, 0xda]))), {
          fileName: 'cut.jpg',
        }),
      400,
      /could not be read as one/,
    ],
    [
      'random bytes named .png',
      () => upload(thumbnail(), randomBytes(3000), { fileName: 'random.png', type: 'image/png' }),
      400,
      /expected a png, jpeg, gif, webp, svg, tiff or avif image/,
    ],
    [
      'a few-KB PNG declaring 30000x30000',
      () => upload(thumbnail(), declaredSizePng(30_000, 30_000), { fileName: 'bomb.png' }),
      400,
      /at most 100000000 pixels but received 30000x30000/,
    ],
    [
      'no file field',
      () => fetch(thumbnail(), { method: 'POST', body: new FormData() }),
      422,
      /no "file" file field/,
    ],
    ['another field name', () => upload(thumbnail(), photo, { field: 'image' }), 422, /no "file" file field/],
    [
      'a body that is not multipart',
      () => fetch(thumbnail(), { method: 'POST', body: photo, headers: { 'content-type': 'image/jpeg' } }),
      422,
      /expected a multipart\/form-data body/,
    ],
    ['area abc', () => upload(thumbnail('abc'), photo), 422, /expected area like 256x256.*"abc"/],
    ['area 256', () => upload(thumbnail('256'), photo), 422, /expected area like 256x256.*"256"/],
    [
      'area 999999x1',
      () => upload(thumbnail('999999x1'), photo),
      400,
      /at most 10000 pixels but received 999999x1/,
    ],
    [
      'an upload over PREVIEW_MAX_UPLOAD_BYTES',
      () => upload(thumbnail(), randomBytes(300 * 1024)),
      413,
      /larger than the limit of 262144 bytes/,
    ],
  ];

  it.each(cases)('%s', async (_label, send, status, message) => {
    const response = await send();
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await detailOf(response)).toMatch(message);
    await expectStillServing();
  });

  it('answers 422 bodies in the HTTPValidationError shape', async () => {
    const response = await upload(thumbnail('abc'), photo);
    expect(await response.json()).toEqual({
      detail: [{ loc: ['path', 'area'], msg: expect.stringContaining('"abc"'), type: expect.any(String) }],
    });
  });
});
