import type { IncomingHttpHeaders } from 'node:http';
import type { Request } from 'express';

const escapePattern = /\\u\{([0-9a-fA-F]{1,6})\}|\\u([0-9a-fA-F]{4})/g;

function fromLatin1AsUtf8(value: string): string {
  const codes = Array.from(value, (character) => character.charCodeAt(0));
  if (!codes.some((code) => code >= 0x80) || codes.some((code) => code > 0xff)) return value;
  const decoded = Buffer.from(value, 'latin1').toString('utf8');
  return decoded.includes('\uFFFD') ? value : decoded;
}

/**
 * Reads a text header as the spec sends it: `\uXXXX` (or `\u{X...}`) escapes of the text, as the
 * original required; plain UTF-8 text is accepted too. Surrogate pairs written as two escapes join.
 */
export function decodeHeaderText(value: string): string {
  const text = fromLatin1AsUtf8(value);
  const units: string[] = [];
  let last = 0;
  for (const match of text.matchAll(escapePattern)) {
    units.push(text.slice(last, match.index));
    const codePoint = Number.parseInt(match[1] ?? match[2] ?? '0', 16);
    units.push(
      match[1] !== undefined && codePoint <= 0x10ffff
        ? String.fromCodePoint(codePoint)
        : String.fromCharCode(codePoint),
    );
    last = match.index + match[0].length;
  }
  units.push(text.slice(last));
  return units.join('');
}

/** One header as a single string, or undefined when absent or repeated. */
export function headerText(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return typeof value === 'string' ? value : undefined;
}

/** Content-Length as a number, when present and well-formed. */
export function declaredLength(request: Request): number | undefined {
  const value = request.headers['content-length'];
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** `Content-Disposition: inline` with an ASCII fallback name and the UTF-8 name (RFC 6266). */
export function inlineDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `inline; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
