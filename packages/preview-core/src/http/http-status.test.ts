import { describe, expect, it } from 'vitest';
import { PreviewError } from '../errors.js';
import { explainMissingPeer } from '../options/optional-peer.js';
import { httpStatusOf, previewErrorStatus, retryAfterSecondsOf } from './http-status.js';

describe('httpStatusOf', () => {
  it('answers the status of each code, 500 for anything else', () => {
    expect(httpStatusOf(new PreviewError('INVALID_AREA', 'bad'))).toBe(422);
    expect(httpStatusOf(new PreviewError('NOT_FOUND', 'gone'))).toBe(404);
    expect(httpStatusOf(new PreviewError('MISSING_DEPENDENCY', 'no mupdf'))).toBe(501);
    expect(httpStatusOf(new Error('bug'))).toBe(500);
    expect(Object.keys(previewErrorStatus)).toHaveLength(19);
  });

  it('gives Retry-After seconds for 503 answers only', () => {
    expect(
      retryAfterSecondsOf(new PreviewError('BUSY', 'full', { details: { retryAfterSeconds: 2.2 } })),
    ).toBe(3);
    expect(retryAfterSecondsOf(new PreviewError('CONVERTER_CRASHED', 'stopped'))).toBe(1);
    expect(retryAfterSecondsOf(new PreviewError('NOT_FOUND', 'gone'))).toBeUndefined();
  });
});

describe('a missing optional peer', () => {
  it('becomes MISSING_DEPENDENCY naming the package to install', () => {
    const missing = Object.assign(new Error("Cannot find package 'mupdf' imported from /app/x.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    expect(() => explainMissingPeer('mupdf', missing)).toThrowError(/npm install mupdf@\^1\.28\.1/);
    const other = new Error('something else');
    expect(() => explainMissingPeer('pdf-lib', other)).toThrow(other);
  });
});
