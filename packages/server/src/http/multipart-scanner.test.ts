import { describe, expect, it } from 'vitest';
import {
  boundaryOf,
  headerParameters,
  MultipartFileTooLargeError,
  MultipartFormatError,
  MultipartScanner,
} from './multipart-scanner.js';

const boundary = 'b0undary';

interface Part {
  headers: string[];
  data: Buffer | string;
}

const filePart = (name: string, data: Buffer | string, fileName = 'x.bin'): Part => ({
  headers: [`Content-Disposition: form-data; name="${name}"; filename="${fileName}"`],
  data,
});

function body(parts: Part[], { preamble = '', epilogue = '' } = {}): Buffer {
  const pieces: Buffer[] = [Buffer.from(preamble ? `${preamble}\r\n` : '')];
  for (const part of parts) {
    pieces.push(Buffer.from(`--${boundary}\r\n${part.headers.map((line) => `${line}\r\n`).join('')}\r\n`));
    pieces.push(Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data));
    pieces.push(Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n${epilogue}`));
  return Buffer.concat(pieces);
}

/** Feeds `bytes` in pieces of `step` bytes (the growing prefix each time), then finishes. */
function scanInSteps(bytes: Buffer, step: number, maxFileBytes = 1024 * 1024) {
  const scanner = new MultipartScanner(boundary, 'file', maxFileBytes);
  for (let length = Math.min(step, bytes.length); ; length = Math.min(length + step, bytes.length)) {
    scanner.scan(bytes.subarray(0, length));
    if (length === bytes.length) break;
  }
  const found = scanner.finish();
  return found && { ...found, data: bytes.subarray(found.start, found.end).toString('latin1') };
}

describe('MultipartScanner', () => {
  const payload = Buffer.from(`binary\r\n--${boundary.slice(0, 5)}\r\n\r\n-- almost a delimiter\r\n`);

  it('finds the file whatever the chunk sizes, delimiters straddling chunks included', () => {
    const bytes = body([
      { headers: ['Content-Disposition: form-data; name="note"'], data: 'hi' },
      filePart('file', payload),
    ]);
    for (const step of [1, 2, 3, 7, 16, 64, bytes.length]) {
      expect(scanInSteps(bytes, step)).toMatchObject({
        data: payload.toString('latin1'),
        fileName: 'x.bin',
        mimeType: 'text/plain',
      });
    }
  });

  it('skips a preamble and an epilogue', () => {
    const bytes = body([filePart('file', 'data')], { preamble: 'ignore me', epilogue: 'and me' });
    expect(scanInSteps(bytes, 5)?.data).toBe('data');
  });

  it('accepts padding after a delimiter and a part without headers', () => {
    const bytes = Buffer.from(
      `--${boundary} \t\r\n\r\nno headers\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nfile\r\n--${boundary}--`,
    );
    expect(scanInSteps(bytes, 3)?.data).toBe('file');
  });

  it('takes the first file part of the name, ignores fields of that name and other files', () => {
    const bytes = body([
      { headers: ['Content-Disposition: form-data; name="file"'], data: 'a text field' },
      filePart('other', 'other file'),
      filePart('file', 'first'),
      filePart('file', 'second'),
    ]);
    expect(scanInSteps(bytes, 4)?.data).toBe('first');
  });

  it('counts a part of type application/octet-stream without a file name as a file', () => {
    const bytes = body([
      {
        headers: ['Content-Disposition: form-data; name="file"', 'Content-Type: Application/Octet-Stream'],
        data: 'raw',
      },
    ]);
    expect(scanInSteps(bytes, 8)).toMatchObject({
      data: 'raw',
      fileName: '',
      mimeType: 'application/octet-stream',
    });
  });

  it('looks at the first four file parts only', () => {
    const others = [1, 2, 3, 4].map((index) => filePart(`other${index}`, 'x'));
    expect(scanInSteps(body([...others, filePart('file', 'late')]), 10)).toBeUndefined();
    expect(scanInSteps(body([...others.slice(1), filePart('file', 'in time')]), 10)?.data).toBe('in time');
  });

  it('reads the file name from filename* before filename, without folders, and the part type', () => {
    const bytes = body([
      {
        headers: [
          `content-disposition: form-data; name="file"; filename="C:\\\\docs\\\\plain.png"; filename*=UTF-8''%E2%82%AC%20price.png`,
          'content-type: image/png; charset=binary',
        ],
        data: 'png',
      },
    ]);
    expect(scanInSteps(bytes, 9)).toMatchObject({ fileName: '€ price.png', mimeType: 'image/png' });
    const folders = body([filePart('file', 'x', '../up/over\\\\here.txt')]);
    expect(scanInSteps(folders, 9)?.fileName).toBe('here.txt');
  });

  it('refuses a file past maxFileBytes before its end arrives, and accepts one at the limit', () => {
    expect(scanInSteps(body([filePart('file', 'x'.repeat(100))]), 7, 100)?.data).toHaveLength(100);
    const scanner = new MultipartScanner(boundary, 'file', 100);
    const start = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\n`,
    );
    const delimiterLength = `\r\n--${boundary}`.length;
    scanner.scan(Buffer.concat([start, Buffer.alloc(100 + delimiterLength - 1, 'x')]));
    expect(() => scanner.scan(Buffer.concat([start, Buffer.alloc(100 + delimiterLength, 'x')]))).toThrow(
      MultipartFileTooLargeError,
    );
  });

  it('does not limit parts other than the file', () => {
    const bytes = body([filePart('other', 'y'.repeat(500)), filePart('file', 'small')]);
    expect(scanInSteps(bytes, 50, 10)?.data).toBe('small');
  });

  it('refuses broken framing', () => {
    const cases = [
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nno closing delimiter`,
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n--${boundary}--\r\n`,
      `--${boundary}junk\r\n\r\nx\r\n--${boundary}--`,
      'no delimiter at all',
    ];
    for (const text of cases) expect(() => scanInSteps(Buffer.from(text), 4)).toThrow(MultipartFormatError);
    const endless = Buffer.from(`--${boundary}\r\nX-Long: ${'h'.repeat(17 * 1024)}`);
    expect(() => new MultipartScanner(boundary, 'file', 10).scan(endless)).toThrow(MultipartFormatError);
  });
});

describe('headerParameters and boundaryOf', () => {
  it('reads token and quoted values, with escapes, names in lower case', () => {
    const parameters = headerParameters('form-data; NAME=file; filename="a \\"b\\"; c=d.png"');
    expect(Object.fromEntries(parameters)).toEqual({ name: 'file', filename: 'a "b"; c=d.png' });
  });

  it('finds the boundary, quoted or not, and nothing without one', () => {
    expect(boundaryOf('multipart/form-data; boundary="a b:c"')).toBe('a b:c');
    expect(boundaryOf('multipart/form-data; charset=utf-8; Boundary=----x1')).toBe('----x1');
    expect(boundaryOf('multipart/form-data')).toBeUndefined();
    expect(boundaryOf('multipart/form-data; boundary=')).toBeUndefined();
    expect(boundaryOf(`multipart/form-data; boundary=${'x'.repeat(201)}`)).toBeUndefined();
  });
});
