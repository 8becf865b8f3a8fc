import { z } from 'zod';

const count = (minimum: number) => z.number().int().min(minimum);

/** Limits of PDF previews and thumbnails. Each has a default and a reason. */
export const pdfLimitsSchema = z.strictObject({
  /**
   * Largest PDF in bytes. pdf-lib and mupdf hold the whole file plus its parsed objects (a few times
   * its size) in memory; 50 MiB admits scanned documents of hundreds of pages.
   * @default 52428800
   */
  maxInputBytes: count(1).default(50 * 1024 * 1024),
  /**
   * Most pages one preview may copy into a new PDF. Copying costs about 0.5 ms a page plus the pages'
   * resources; 500 pages stays well under a second. Asking for the whole document is never limited,
   * because it returns the original bytes.
   * @default 500
   */
  maxPagesPerSelection: count(1).default(500),
  /**
   * Most pixels a page render for a thumbnail may have; a larger render is scaled down to fit. 16 MP is
   * an A4 page at 400 DPI (48 MB of RGB), more than any thumbnail needs, and it keeps a page with a
   * huge or absurdly shaped media box from taking the server's memory.
   * @default 16000000
   */
  maxRenderPixels: count(1).default(16_000_000),
});

/** PDF limits as a caller writes them; every field optional. */
export type PdfLimitsInput = z.input<typeof pdfLimitsSchema>;
/** PDF limits with every default applied. */
export type PdfLimits = z.output<typeof pdfLimitsSchema>;
