import { PreviewError, type PreviewErrorCode, type PreviewErrorDetails } from '../errors.js';
import type { Area } from '../image/area.js';
import type { RenderOptions } from '../image/image-options.js';
import type { RawPixels, RenderedImage } from '../image/render-image.js';
import type { PreviewLimits } from '../limits/preview-limits.js';
import type { PageRangeRequest } from './page-selection.js';

/** Work one PDF worker does for one request: copy a page range, draw the first page, or its thumbnail. */
export type PdfTask =
  | {
      readonly kind: 'select-pages';
      readonly bytes: Uint8Array;
      readonly range: PageRangeRequest;
      readonly maxPagesPerSelection: number;
    }
  | {
      readonly kind: 'render-first-page';
      readonly bytes: Uint8Array;
      readonly area: Area;
      readonly maxRenderPixels: number;
    }
  | {
      /** The first page drawn and encoded as a thumbnail in the worker: no pixels cross threads. */
      readonly kind: 'thumbnail-first-page';
      readonly bytes: Uint8Array;
      readonly area: Area;
      readonly maxRenderPixels: number;
      readonly render: RenderOptions;
      readonly limits: PreviewLimits;
    };

/** What a page-range task gives back: the PDF and which pages of how many it holds. */
export interface SelectedPages {
  readonly data: Uint8Array;
  readonly firstPage: number;
  readonly lastPage: number;
  readonly pageCount: number;
}

/** The answer of one task, as it crosses the thread boundary (a thrown error would lose its code). */
export type PdfTaskOutcome =
  | { readonly ok: true; readonly value: SelectedPages | RawPixels | RenderedImage }
  | {
      readonly ok: false;
      readonly code: PreviewErrorCode;
      readonly message: string;
      readonly details: PreviewErrorDetails | undefined;
    };

/** A message a worker posts when it starts a task, so the deadline counts work and not waiting. */
export interface PdfTaskStarted {
  readonly pdfTaskStarted: number;
}

/** A task with the id its start message carries. */
export type NumberedPdfTask = PdfTask & { readonly id: number };

/** The outcome of a failed task, from the error a worker caught. */
export function failedOutcome(error: PreviewError): PdfTaskOutcome {
  return { ok: false, code: error.code, message: error.message, details: error.details };
}

/** The PreviewError a failed outcome stands for. */
export function outcomeError(outcome: Extract<PdfTaskOutcome, { ok: false }>): PreviewError {
  return new PreviewError(
    outcome.code,
    outcome.message,
    outcome.details === undefined ? {} : { details: outcome.details },
  );
}

/** True for the start message of a task posted by a worker. */
export function isTaskStarted(message: unknown): message is PdfTaskStarted {
  return (
    typeof message === 'object' &&
    message !== null &&
    typeof (message as PdfTaskStarted).pdfTaskStarted === 'number'
  );
}

/** What every PDF worker thread is started with. */
export interface PdfWorkerData {
  /** The thread's nice value (Linux). */
  readonly nice: number;
}
