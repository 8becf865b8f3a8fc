import { PreviewError } from '../errors.js';

const EXTERNAL_ENTITY = /<!ENTITY\s+%?\s*[^\s>]+\s+(SYSTEM|PUBLIC)\b/i;
const XML_START = /^\s*(\uFEFF)?</;

/**
 * Refuses XML/SVG input that declares external entities. librsvg already fetches nothing from a
 * buffer except `data:` URLs; this guard keeps XML external entities out as a second line.
 * @throws {PreviewError} `UNREADABLE_INPUT` when an external entity is declared.
 */
export function assertSvgIsSelfContained(bytes: Uint8Array): void {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 64)).toString('utf8');
  if (!XML_START.test(head)) return;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (EXTERNAL_ENTITY.test(text)) {
    throw new PreviewError(
      'UNREADABLE_INPUT',
      'expected a self-contained svg image but received one declaring an external entity (SYSTEM or PUBLIC); external resources are never loaded',
    );
  }
}
