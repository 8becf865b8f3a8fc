import type { RawPixels, RenderedImage } from '../image/render-image.js';
import { renderRawPixels } from '../image/render-request.js';
import { openPdf } from './open-pdf.js';
import { resolvePageSelection } from './page-selection.js';
import type { PdfTask, SelectedPages } from './pdf-task.js';
import { renderPage } from './render-page.js';
import { selectPages } from './select-pages.js';

/**
 * Does one PDF task on the calling thread: mupdf opens and checks the document, then pdf-lib copies
 * the range or mupdf draws the first page. The PDF worker threads run this; nothing else should,
 * since a costly document holds the thread for as long as it takes.
 * @throws {PreviewError} `UNREADABLE_INPUT`, `PASSWORD_PROTECTED`, `INVALID_OPTION`, `TOO_MANY_PAGES`.
 */
export async function runPdfTask(task: PdfTask): Promise<SelectedPages | RawPixels | RenderedImage> {
  const opened = await openPdf(task.bytes);
  try {
    if (task.kind === 'render-first-page') {
      return renderPage(opened, 0, task.area, task.maxRenderPixels, { thumbnailOnly: true });
    }
    if (task.kind === 'thumbnail-first-page') {
      const pixels = renderPage(opened, 0, task.area, task.maxRenderPixels, { thumbnailOnly: true });
      return renderRawPixels(pixels, task.render, task.limits);
    }
    const selection = resolvePageSelection(task.range, opened.pageCount, task.maxPagesPerSelection);
    const data = await selectPages(task.bytes, opened, selection);
    return {
      data,
      firstPage: selection.firstPage,
      lastPage: selection.lastPage,
      pageCount: opened.pageCount,
    };
  } finally {
    opened.close();
  }
}
