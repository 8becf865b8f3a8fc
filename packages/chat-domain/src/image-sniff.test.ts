import { describe, expect, it } from 'vitest';
import { detectImageType } from './image-sniff.js';

describe('detectImageType', () => {
  it('recognises raster signatures', () => {
    expect(detectImageType(Buffer.from('89504e470d0a1a0a0000', 'hex'))).toBe('image/png');
    expect(detectImageType(Buffer.from('ffd8ffe000104a464946', 'hex'))).toBe('image/jpeg');
    expect(detectImageType(Buffer.from('GIF89a....'))).toBe('image/gif');
    expect(detectImageType(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(detectImageType(Buffer.concat([Buffer.from('\0\0\0\x1cftypavif'), Buffer.alloc(8)]))).toBe(
      'image/avif',
    );
  });

  it('refuses text, SVG and truncated signatures', () => {
    expect(detectImageType(Buffer.from('hello world'))).toBeUndefined();
    expect(detectImageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeUndefined();
    expect(detectImageType(Buffer.from('89504e47', 'hex'))).toBeUndefined();
    expect(detectImageType(new Uint8Array())).toBeUndefined();
  });
});
