import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  animatedGif,
  imageFacts,
  isNear,
  pixelAt,
  QUADRANT_COLOURS,
  quadrantImage,
  rotatedExifJpeg,
} from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { bodyBytes, detailOf, upload } from './preview-test-support.js';

const BLACK = [0, 0, 0, 255] as const;
const TRANSPARENT = [0, 0, 0, 0] as const;

describe('POST /preview/image/{area}/thumbnail/', () => {
  let server: TestServer;
  let landscape: Buffer;
  beforeAll(async () => {
    server = await startTestServer();
    landscape = await quadrantImage(400, 200, 'png');
  });
  afterAll(() => server.stop());

  const thumbnail = (area: string, query = '') => `${server.url}/preview/image/${area}/thumbnail/${query}`;

  it('answers a jpeg of exactly the area by default, centre-cropped, not cacheable', async () => {
    const response = await upload(thumbnail('100x100'), landscape);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/jpeg');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const image = await bodyBytes(response);
    expect(await imageFacts(image)).toMatchObject({ format: 'jpeg', width: 100, height: 100 });
    expect(isNear(await pixelAt(image, 5, 5), QUADRANT_COLOURS.topLeft)).toBe(true);
    expect(isNear(await pixelAt(image, 94, 94), QUADRANT_COLOURS.bottomRight)).toBe(true);
  });

  it('reads the area as width x height', async () => {
    const image = await bodyBytes(await upload(thumbnail('160x90', '?output_format=png'), landscape));
    expect(await imageFacts(image)).toMatchObject({ format: 'png', width: 160, height: 90 });
  });

  it('shape=rounded gives png thumbnails transparent corners and an opaque middle', async () => {
    const response = await upload(thumbnail('100x100', '?shape=rounded&output_format=png'), landscape);
    expect(response.headers.get('content-type')).toBe('image/png');
    const image = await bodyBytes(response);
    expect((await pixelAt(image, 0, 0))[3]).toBe(0);
    expect((await pixelAt(image, 99, 0))[3]).toBe(0);
    expect((await pixelAt(image, 50, 50))[3]).toBe(255);
  });

  it('shape=rounded gives jpeg thumbnails black corners', async () => {
    const image = await bodyBytes(await upload(thumbnail('100x100', '?shape=rounded'), landscape));
    expect(isNear(await pixelAt(image, 1, 1), BLACK)).toBe(true);
    expect(isNear(await pixelAt(image, 30, 30), QUADRANT_COLOURS.topLeft)).toBe(true);
  });

  it('quality changes jpeg output only', async () => {
    const photo = await quadrantImage(400, 400, 'jpeg');
    const size = async (query: string) =>
      (await bodyBytes(await upload(thumbnail('300x300', query), photo))).length;
    const lowest = await size('?quality=lowest');
    const medium = await size('');
    const highest = await size('?quality=highest');
    expect(lowest).toBeLessThan(medium);
    expect(medium).toBeLessThan(highest);
    expect(await size('?quality=lowest&output_format=png')).toBe(
      await size('?quality=highest&output_format=png'),
    );
  });

  it('keeps the frames and delays of an animated GIF for output_format=gif', async () => {
    const colours = [
      [255, 0, 0, 255],
      [0, 255, 0, 255],
      [0, 0, 255, 255],
    ] as const;
    const gif = await animatedGif(120, 90, colours, [100, 200, 300]);
    const response = await upload(thumbnail('80x80', '?output_format=gif'), gif);
    expect(response.headers.get('content-type')).toBe('image/gif');
    const image = await bodyBytes(response);
    expect(await imageFacts(image)).toMatchObject({
      format: 'gif',
      width: 80,
      height: 80,
      frames: 3,
      delay: [100, 200, 300],
    });
    expect(isNear(await pixelAt(image, 40, 40, 2), colours[2])).toBe(true);
  });

  it('answers 400 saying why when gif output is asked for a png', async () => {
    const response = await upload(thumbnail('80x80', '?output_format=gif'), landscape);
    expect(response.status).toBe(400);
    expect(await detailOf(response)).toMatch(/gif is only available for GIF input.*png/);
  });

  it('applies the EXIF orientation of a rotated photo', async () => {
    const photo = await rotatedExifJpeg(200, 100);
    const image = await bodyBytes(await upload(thumbnail('0x0', '?output_format=png'), photo));
    expect(await imageFacts(image)).toMatchObject({ width: 100, height: 200 });
    expect(isNear(await pixelAt(image, 50, 10), [255, 0, 0, 255], 30)).toBe(true);
    expect(isNear(await pixelAt(image, 50, 190), [0, 0, 255, 255], 30)).toBe(true);
  });

  it('answers webp and avif thumbnails when asked (extension; jpeg stays the default)', async () => {
    for (const format of ['webp', 'avif']) {
      const response = await upload(thumbnail('80x80', `?output_format=${format}`), landscape);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(`image/${format}`);
    }
  });

  it('reads the width-only area 200x as the source aspect ratio, and 200x0 as the source height', async () => {
    const photo = await rotatedExifJpeg(200, 100);
    const answer = await upload(thumbnail('200x', '?output_format=png'), photo);
    if (answer.status !== 200) throw new Error(`${answer.status} ${await answer.text()}`);
    const widthOnly = await bodyBytes(answer);
    expect(await imageFacts(widthOnly)).toMatchObject({ width: 200, height: 400 });
    const original = await bodyBytes(await upload(thumbnail('100x0', '?output_format=png'), photo));
    expect(await imageFacts(original)).toMatchObject({ width: 100, height: 200 });
  });

  it.each([
    ['shape', 'circle'],
    ['quality', 'ultra'],
    ['output_format', 'bmp'],
  ])('answers 422 with an HTTPValidationError for %s=%s', async (name, value) => {
    const response = await upload(thumbnail('80x80', `?${name}=${value}`), landscape);
    expect(response.status).toBe(422);
    const body = (await response.json()) as { detail: { loc: unknown[]; msg: string; type: string }[] };
    expect(body.detail[0]).toMatchObject({
      loc: ['query', name],
      msg: expect.stringContaining(`"${value}"`),
    });
  });
});

describe('POST /preview/image/{area}/', () => {
  let server: TestServer;
  let landscapePng: Buffer;
  let landscapeJpeg: Buffer;
  let fetchTarget: Server;
  const fetched: string[] = [];
  beforeAll(async () => {
    server = await startTestServer();
    landscapePng = await quadrantImage(400, 200, 'png');
    landscapeJpeg = await quadrantImage(400, 200, 'jpeg');
    fetchTarget = createServer((request, response) => {
      fetched.push(request.url ?? '');
      response.end();
    });
    await new Promise<void>((resolve) => fetchTarget.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await server.stop();
    await new Promise((resolve) => fetchTarget.close(resolve));
  });

  const preview = (area: string, query = '') => `${server.url}/preview/image/${area}/${query}`;

  it('fits a png with transparent borders and answers png', async () => {
    const response = await upload(preview('200x200'), landscapePng);
    expect(response.headers.get('content-type')).toBe('image/png');
    const image = await bodyBytes(response);
    expect(await imageFacts(image)).toMatchObject({ width: 200, height: 200 });
    expect(await pixelAt(image, 100, 10)).toEqual(TRANSPARENT);
    expect(await pixelAt(image, 5, 55)).toEqual(QUADRANT_COLOURS.topLeft);
    expect(await pixelAt(image, 195, 145)).toEqual(QUADRANT_COLOURS.bottomRight);
  });

  it('fits a jpeg with black borders and answers jpeg', async () => {
    const response = await upload(preview('200x200'), landscapeJpeg);
    expect(response.headers.get('content-type')).toBe('image/jpeg');
    const image = await bodyBytes(response);
    expect(isNear(await pixelAt(image, 100, 10), BLACK)).toBe(true);
    expect(isNear(await pixelAt(image, 100, 190), BLACK)).toBe(true);
  });

  it('output_format=jpeg flattens the borders of a png on black', async () => {
    const response = await upload(preview('200x200', '?output_format=jpeg'), landscapePng);
    expect(response.headers.get('content-type')).toBe('image/jpeg');
    expect(isNear(await pixelAt(await bodyBytes(response), 100, 10), BLACK)).toBe(true);
  });

  it.each(['true', '1', 'yes', 'on'])('crop=%s cuts the image instead of adding borders', async (crop) => {
    const image = await bodyBytes(await upload(preview('200x200', `?crop=${crop}`), landscapePng));
    expect(await pixelAt(image, 5, 5)).toEqual(QUADRANT_COLOURS.topLeft);
    expect(await pixelAt(image, 195, 195)).toEqual(QUADRANT_COLOURS.bottomRight);
  });

  it('answers 422 for crop=maybe', async () => {
    const response = await upload(preview('200x200', '?crop=maybe'), landscapePng);
    expect(response.status).toBe(422);
  });

  it('keeps an animated GIF animated with every frame', async () => {
    const gif = await animatedGif(120, 100, [
      [255, 0, 0, 255],
      [0, 0, 255, 255],
    ]);
    const response = await upload(preview('240x240'), gif);
    expect(response.headers.get('content-type')).toBe('image/gif');
    expect(await imageFacts(await bodyBytes(response))).toMatchObject({
      format: 'gif',
      width: 240,
      height: 240,
      frames: 2,
    });
  });

  it('answers webp input as png', async () => {
    const response = await upload(preview('100x100'), await quadrantImage(200, 200, 'webp'));
    expect(response.headers.get('content-type')).toBe('image/png');
  });

  it('rasterises an svg that references http://127.0.0.1 without any request leaving the process', async () => {
    const port = (fetchTarget.address() as AddressInfo).port;
    const svg = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100"><rect width="100" height="100" fill="#00ff00"/><image href="http://127.0.0.1:${port}/tracker.png" width="100" height="100"/><image xlink:href="http://127.0.0.1:${port}/x.png" width="10" height="10"/></svg>`,
    );
    const response = await upload(preview('0x0'), svg, { fileName: 'drawing.svg', type: 'image/svg+xml' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(await pixelAt(await bodyBytes(response), 50, 50)).toEqual([0, 255, 0, 255]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fetched).toEqual([]);
    // The target is reachable, so a fetch would have been counted.
    await fetch(`http://127.0.0.1:${port}/probe`);
    expect(fetched).toEqual(['/probe']);
  });
});
