import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { z } from 'zod';

const milliseconds = (minimum: number) => z.number().int().min(minimum);

/** Options of the local LibreOffice converter pool, parsed once. */
export const libreOfficeOptionsSchema = z.strictObject({
  /**
   * The `soffice` program: a name looked up on PATH or a path. Missing: the converter reports
   * itself unavailable (CONVERTER_UNAVAILABLE) and keeps retrying in the background.
   * @default 'soffice'
   */
  sofficePath: z.string().min(1).default('soffice'),
  /**
   * A python 3 that can `import uno` (Debian: python3-uno). Debian's own interpreter is used when it
   * exists, because a pyenv `python3` on PATH has no `uno` module.
   * @default '/usr/bin/python3' when it exists, else 'python3'
   */
  pythonPath: z
    .string()
    .min(1)
    .default(() => (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3')),
  /**
   * Warm soffice instances, each converting one document at a time. One per core: a conversion keeps
   * a core busy, so more instances only add memory (about 200 MB each).
   * @default os.availableParallelism()
   */
  instances: z
    .number()
    .int()
    .min(1)
    .default(() => availableParallelism()),
  /**
   * Conversions waiting for a free instance; past it a request fails at once with BUSY. 16 is a few
   * seconds of typical documents per instance, short enough that a caller can retry elsewhere.
   * @default 16
   */
  maxQueued: z.number().int().min(0).default(16),
  /**
   * Longest one conversion may take before its instance is killed and restarted (CONVERSION_TIMEOUT).
   * A 90-page docx converts in about 1 s warm; 30 s leaves room for large spreadsheets and frees an
   * instance wedged on a hostile document.
   * @default 30000
   */
  conversionTimeoutMs: milliseconds(1).default(30_000),
  /**
   * Longest a conversion may wait in the queue before it fails with BUSY, so a request's latency
   * stays bounded when instances are slow.
   * @default 30000
   */
  queueTimeoutMs: milliseconds(1).default(30_000),
  /**
   * Longest an instance may take to start (a new profile is created on the first start, about 2 s).
   * @default 60000
   */
  startTimeoutMs: milliseconds(1).default(60_000),
  /**
   * An instance is restarted after this many conversions, because LibreOffice's memory grows over
   * hundreds of documents (unoserver and Gotenberg recycle for the same reason).
   * @default 100
   */
  restartAfterConversions: z.number().int().min(1).default(100),
  /**
   * First delay before retrying an instance that failed to start; doubled after each failure up to
   * 30 s, so a missing LibreOffice costs one failed spawn every 30 s.
   * @default 1000
   */
  startRetryDelayMs: milliseconds(1).default(1_000),
  /**
   * Largest PDF a conversion may produce; a larger one fails with CONVERSION_FAILED instead of being
   * read into memory. 100 MiB is a few thousand pages of text.
   * @default 104857600
   */
  maxOutputBytes: z
    .number()
    .int()
    .min(1)
    .default(100 * 1024 * 1024),
  /**
   * Locale for conversions that name none (number and date formats of spreadsheets, for example).
   * @default 'en-US'
   */
  defaultLocale: z.string().min(2).default('en-US'),
  /**
   * Folder for the instances' profiles and the documents being converted; a fresh folder under the
   * system's temporary folder when omitted, removed by `close()`.
   */
  workDir: z.string().min(1).optional(),
});

/** Options of the LibreOffice converter as a caller writes them. */
export type LibreOfficeOptionsInput = z.input<typeof libreOfficeOptionsSchema>;
/** Options of the LibreOffice converter with every default applied. */
export type LibreOfficeOptions = z.output<typeof libreOfficeOptionsSchema>;
