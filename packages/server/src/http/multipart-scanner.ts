/** Where the wanted file lies in the body, and what its part headers say about it. */
export interface FoundFilePart {
  /** Offset of the file's first byte in the body. */
  start: number;
  /** Offset just past the file's last byte. */
  end: number;
  /** The part's `filename*` or `filename`, without any folder; '' when the part has neither. */
  fileName: string;
  /** The part's `Content-Type`, `text/plain` when it has none. */
  mimeType: string;
}

/** The body does not follow multipart framing (or ends before its closing delimiter). */
export class MultipartFormatError extends Error {
  override name = 'MultipartFormatError';
}

/** The wanted file part holds more than the allowed bytes. */
export class MultipartFileTooLargeError extends Error {
  override name = 'MultipartFileTooLargeError';
}

/** Part headers longer than this are refused as malformed (Node's own limit for request headers). */
const MAX_PART_HEADER_BYTES = 16 * 1024;
/** Only this many file parts are looked at; later ones are skipped, bounding the work per body. */
const MAX_FILE_PARTS = 4;
/** Transport padding allowed after a delimiter, before its line ends. */
const MAX_DELIMITER_PADDING = 256;

const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');
const parameter = /;\s*([^\s;=]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;]*))/g;

/**
 * The parameters of a header value such as `form-data; name="file"; filename="a.png"` (names
 * lower-cased). Quoted strings lose their escapes; `name*=UTF-8''%E2%82%AC.png` (RFC 8187) is
 * decoded and kept under `name*`.
 */
export function headerParameters(value: string): Map<string, string> {
  const parameters = new Map<string, string>();
  for (const match of value.matchAll(parameter)) {
    const name = (match[1] ?? '').toLowerCase();
    const quoted = match[2];
    let text = quoted === undefined ? (match[3] ?? '') : quoted.replace(/\\(.)/g, '$1');
    if (name.endsWith('*')) {
      const encoded = /^([\w!#$%&+^`{}~-]*)'[^']*'(.*)$/.exec(text);
      if (encoded) {
        try {
          text = decodeURIComponent(encoded[2] ?? '');
        } catch {
          continue;
        }
      }
    }
    parameters.set(name, text);
  }
  return parameters;
}

/** The `boundary` of a `multipart/form-data` content type, or undefined without a usable one. */
export function boundaryOf(contentType: string): string | undefined {
  const boundary = headerParameters(contentType).get('boundary');
  return boundary && boundary.length <= 200 ? boundary : undefined;
}

interface PartHeaders {
  name: string | undefined;
  fileName: string | undefined;
  mimeType: string;
  isFormData: boolean;
}

function parsePartHeaders(text: string): PartHeaders {
  const headers = new Map<string, string>();
  let last = '';
  for (const line of text.split('\r\n')) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && last) {
      headers.set(last, `${headers.get(last) ?? ''} ${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    last = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(last)) headers.set(last, line.slice(colon + 1).trim());
  }
  const disposition = headers.get('content-disposition') ?? '';
  const parameters = headerParameters(disposition);
  const fileName = parameters.get('filename*') ?? parameters.get('filename');
  const type = (headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  return {
    isFormData: /^form-data\s*(;|$)/i.test(disposition),
    name: parameters.get('name'),
    fileName:
      fileName === undefined
        ? undefined
        : fileName.slice(Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1),
    mimeType: type || 'text/plain',
  };
}

type State = 'preamble' | 'delimiter' | 'headers' | 'body' | 'end';

/**
 * Finds the first file part named `fieldName` in a `multipart/form-data` body while it arrives:
 * call {@link scan} with the bytes received so far each time more come, then {@link finish} once
 * the body is complete. Delimiters are found with `Buffer#indexOf`, and each byte is looked at
 * about once. A part is a file when it has a `filename` (or `filename*`) or the type
 * `application/octet-stream`; other parts are skipped, as are file parts after the fourth.
 */
export class MultipartScanner {
  private readonly dashBoundary: Buffer;
  private readonly delimiter: Buffer;
  private state: State = 'preamble';
  private position = 0;
  private searchFrom = 0;
  private partStart = 0;
  private isWanted = false;
  private fileParts = 0;
  private wanted: Omit<FoundFilePart, 'start' | 'end'> | undefined;
  private found: FoundFilePart | undefined;

  constructor(
    boundary: string,
    private readonly fieldName: string,
    private readonly maxFileBytes: number,
  ) {
    this.dashBoundary = Buffer.from(`--${boundary}`);
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
  }

  /** The file part, once its closing delimiter has been seen. */
  get file(): FoundFilePart | undefined {
    return this.found;
  }

  /**
   * Scans `body` (the bytes received so far; earlier bytes must not change) as far as it goes.
   * @throws MultipartFormatError when the framing is broken.
   * @throws MultipartFileTooLargeError as soon as the wanted file has more than `maxFileBytes`.
   */
  scan(body: Buffer): void {
    while (this.state !== 'end') {
      const advanced =
        this.state === 'preamble'
          ? this.scanPreamble(body)
          : this.state === 'delimiter'
            ? this.scanDelimiterEnd(body)
            : this.state === 'headers'
              ? this.scanHeaders(body)
              : this.scanBody(body);
      if (!advanced) return;
    }
  }

  /**
   * Checks the complete body ended after the closing delimiter.
   * @throws MultipartFormatError when it did not.
   */
  finish(): FoundFilePart | undefined {
    if (this.state !== 'end')
      throw new MultipartFormatError('the multipart body ends before its closing delimiter');
    return this.found;
  }

  private scanPreamble(body: Buffer): boolean {
    if (this.position === 0 && this.searchFrom === 0) {
      if (body.length < this.dashBoundary.length) return false;
      if (body.subarray(0, this.dashBoundary.length).equals(this.dashBoundary)) {
        this.position = this.dashBoundary.length;
        this.state = 'delimiter';
        return true;
      }
    }
    const index = body.indexOf(this.delimiter, this.searchFrom);
    if (index < 0) {
      this.searchFrom = Math.max(1, body.length - this.delimiter.length + 1);
      return false;
    }
    this.position = index + this.delimiter.length;
    this.state = 'delimiter';
    return true;
  }

  /** After a delimiter: `--` closes the body; else optional padding and a line end open a part. */
  private scanDelimiterEnd(body: Buffer): boolean {
    if (body.length - this.position < 2) return false;
    if (body[this.position] === 0x2d && body[this.position + 1] === 0x2d) {
      this.state = 'end';
      return true;
    }
    const lineEnd = body.indexOf(CRLF, this.position);
    if (lineEnd < 0) {
      if (body.length - this.position > MAX_DELIMITER_PADDING)
        throw new MultipartFormatError('bad delimiter line');
      return false;
    }
    for (let index = this.position; index < lineEnd; index += 1) {
      if (body[index] !== 0x20 && body[index] !== 0x09) throw new MultipartFormatError('bad delimiter line');
    }
    this.position = lineEnd + 2;
    this.searchFrom = this.position;
    this.state = 'headers';
    return true;
  }

  private scanHeaders(body: Buffer): boolean {
    const start = this.position;
    let end: number;
    if (body.length - start >= 2 && body[start] === 0x0d && body[start + 1] === 0x0a) end = start - 2;
    else {
      end = body.indexOf(HEADERS_END, this.searchFrom);
      if (end < 0 || end - start > MAX_PART_HEADER_BYTES) {
        if (body.length - start > MAX_PART_HEADER_BYTES)
          throw new MultipartFormatError('part headers too long');
        this.searchFrom = Math.max(start, body.length - HEADERS_END.length + 1);
        return false;
      }
    }
    const headers = end < start ? undefined : parsePartHeaders(body.toString('utf8', start, end));
    this.isWanted = false;
    if (
      headers?.isFormData &&
      (headers.fileName !== undefined || headers.mimeType === 'application/octet-stream')
    ) {
      this.fileParts += 1;
      if (this.wanted === undefined && this.fileParts <= MAX_FILE_PARTS) {
        this.isWanted = headers.name === this.fieldName;
        if (this.isWanted) this.wanted = { fileName: headers.fileName ?? '', mimeType: headers.mimeType };
      }
    }
    this.position = end + 4;
    this.partStart = this.position;
    this.searchFrom = this.position;
    this.state = 'body';
    return true;
  }

  private scanBody(body: Buffer): boolean {
    const index = body.indexOf(this.delimiter, this.searchFrom);
    // Bytes that cannot begin a delimiter already belong to the part.
    const partLength = (index < 0 ? body.length - this.delimiter.length + 1 : index) - this.partStart;
    if (this.isWanted && partLength > this.maxFileBytes) {
      throw new MultipartFileTooLargeError(`the file has more than ${this.maxFileBytes} bytes`);
    }
    if (index < 0) {
      this.searchFrom = Math.max(this.partStart, body.length - this.delimiter.length + 1);
      return false;
    }
    if (this.isWanted && this.wanted) {
      this.found = { start: this.partStart, end: index, ...this.wanted };
      this.isWanted = false;
    }
    this.position = index + this.delimiter.length;
    this.state = 'delimiter';
    return true;
  }
}
