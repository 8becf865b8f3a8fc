import { describe, expect, it } from 'vitest';
import { createInMemoryConverter } from './in-memory-converter.js';
import { describeDocumentConverterConformance } from './vitest/document-converter-conformance.js';

describeDocumentConverterConformance('in-memory', {
  create: () => createInMemoryConverter(),
  sample: () => ({ data: new Uint8Array([1, 2, 3]), type: 'xlsx', firstPageText: 'xlsx page 1 en-US' }),
});

describe('createInMemoryConverter', () => {
  it('fails on demand with the chosen code and a retry hint for the 503 codes', async () => {
    const converter = createInMemoryConverter();
    converter.failWith('CONVERSION_TIMEOUT');
    await expect(converter.convert({ data: new Uint8Array(1), type: 'docx' })).rejects.toMatchObject({
      code: 'CONVERSION_TIMEOUT',
      details: { retryAfterSeconds: 1 },
    });
    converter.failWith(undefined);
    await expect(converter.convert({ data: new Uint8Array(1), type: 'docx' })).resolves.toBeInstanceOf(
      Uint8Array,
    );
    expect(converter.requests).toHaveLength(2);
  });
});
