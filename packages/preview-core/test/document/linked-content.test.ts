import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLibreOfficeConverter } from '../../src/document/libreoffice/libreoffice-converter.js';
import { loadMupdf } from '../../src/pdf/mupdf-module.js';
import { makeZip } from '../../src/testing/container-samples.js';

// A document is untrusted input: converting it must not fetch its linked images from the network
// (a request from the server to wherever the document points) nor read linked local files into the
// PDF. The document links a red image twice: file:// on this host and http:// on a loopback server.

const run = promisify(execFile);

function linkingOdt(localImage: string, remoteImage: string): Uint8Array {
  const image = (href: string) =>
    `<draw:frame svg:width="8cm" svg:height="8cm" text:anchor-type="as-char"><draw:image xlink:href="${href}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame>`;
  const content = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" office:version="1.3">
<office:body><office:text><text:p>Linked images ${image(localImage)}${image(remoteImage)}</text:p></office:text></office:body></office:document-content>`;
  const manifest = `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`;
  return makeZip([
    { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text', method: 'store' },
    { name: 'content.xml', data: content },
    { name: 'META-INF/manifest.xml', data: manifest },
  ]);
}

async function redPixelsOfFirstPage(pdf: Uint8Array): Promise<number> {
  const mupdf = await loadMupdf();
  const document = mupdf.Document.openDocument(pdf, 'application/pdf');
  const page = document.loadPage(0);
  const pixmap = page.toPixmap(mupdf.Matrix.scale(0.5, 0.5), mupdf.ColorSpace.DeviceRGB, false, true);
  const pixels = pixmap.getPixels();
  let red = 0;
  for (let index = 0; index < pixels.length; index += 3) {
    if ((pixels[index] ?? 0) > 200 && (pixels[index + 1] ?? 255) < 60 && (pixels[index + 2] ?? 255) < 60)
      red += 1;
  }
  pixmap.destroy();
  page.destroy();
  document.destroy();
  return red;
}

describe('LibreOffice pool and linked content', () => {
  const folder = mkdtempSync(join(tmpdir(), 'linked-content-'));
  const requests: string[] = [];
  let server: Server;
  let odt: Uint8Array;

  beforeAll(async () => {
    const red = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
    writeFileSync(join(folder, 'local.png'), red);
    server = createServer((request, response) => {
      requests.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'image/png' }).end(red);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    odt = linkingOdt(`file://${join(folder, 'local.png')}`, `http://127.0.0.1:${port}/remote.png`);
    writeFileSync(join(folder, 'links.odt'), odt);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(folder, { recursive: true, force: true });
  });

  it('control: LibreOffice with its default settings embeds the linked local file', async () => {
    const profile = `file://${join(folder, 'cold-profile')}`;
    await run(
      'soffice',
      [
        `-env:UserInstallation=${profile}`,
        '--headless',
        '--convert-to',
        'pdf',
        '--outdir',
        folder,
        join(folder, 'links.odt'),
      ],
      {
        timeout: 120_000,
      },
    );
    expect(await redPixelsOfFirstPage(readFileSync(join(folder, 'links.pdf')))).toBeGreaterThan(1000);
  });

  it('converts without fetching the http link or embedding the local file', async () => {
    const converter = createLibreOfficeConverter({ instances: 1 });
    try {
      requests.length = 0;
      const pdf = await converter.convert({ data: odt, type: 'odt' });
      expect(await redPixelsOfFirstPage(pdf)).toBe(0);
      expect(requests).toEqual([]);
    } finally {
      await converter.close();
    }
  });
});
