import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPreviewService } from '../../src/index.js';
import { pixelAt } from '../../src/testing/index.js';

const service = createPreviewService();

describe('svg input never makes the process fetch anything', () => {
  let server: Server;
  let origin: string;
  const requests: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      requests.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'image/png' }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const svg = (body: string, prolog = '') =>
    Buffer.from(
      `${prolog}<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:xi="http://www.w3.org/2001/XInclude" width="100" height="100"><rect width="100" height="100" fill="#ff0000"/>${body}</svg>`,
    );

  const cases: Array<[string, (origin: string) => Buffer]> = [
    ['<image href>', (at) => svg(`<image href="${at}/image.png" width="100" height="100"/>`)],
    ['<image xlink:href>', (at) => svg(`<image xlink:href="${at}/xlink.png" width="100" height="100"/>`)],
    ['<use> of an external document', (at) => svg(`<use href="${at}/use.svg#shape"/>`)],
    [
      '<feImage>',
      (at) =>
        svg(
          `<filter id="f"><feImage href="${at}/fe.png"/></filter><rect width="10" height="10" filter="url(#f)"/>`,
        ),
    ],
    ['CSS @import', (at) => svg(`<style>@import url(${at}/style.css);</style>`)],
    ['XInclude', (at) => svg(`<xi:include href="${at}/include.xml" parse="text"/>`)],
    [
      'an external DTD in the DOCTYPE',
      (at) =>
        svg('', `<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "${at}/svg11.dtd">`),
    ],
    ['a file: URL', () => svg('<image href="file:///etc/hostname" width="100" height="100"/>')],
  ];

  it.each(cases)('renders an svg with %s and sends no request', async (_label, build) => {
    const before = requests.length;
    const result = await service.imagePreview(build(origin), { area: '0x0' });
    expect(result.format).toBe('png');
    expect(await pixelAt(result.data, 50, 50)).toEqual([255, 0, 0, 255]);
    // Give any stray request time to arrive before counting.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requests.slice(before)).toEqual([]);
  });

  it('refuses an svg declaring an external entity, without a request', async () => {
    const input = svg(
      '<text>&remote;</text>',
      `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY remote SYSTEM "${origin}/entity.txt">]>`,
    );
    await expect(service.imagePreview(input, { area: '0x0' })).rejects.toMatchObject({
      code: 'UNREADABLE_INPUT',
      message: expect.stringContaining('external entity'),
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requests).toEqual([]);
  });

  it('the test server does answer a direct request (the check above can fail)', async () => {
    const response = await fetch(`${origin}/probe`);
    expect(response.status).toBe(200);
    expect(requests).toEqual(['/probe']);
    requests.length = 0;
  });
});
