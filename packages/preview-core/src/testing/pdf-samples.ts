import { PDFDocument, PDFName, PDFNumber, StandardFonts } from 'pdf-lib';
import { loadMupdf } from '../pdf/mupdf-module.js';

/** A PDF of `pageCount` pages of `size` points whose page n reads "Page n". Built with pdf-lib. */
export async function makePdf(pageCount: number, size: [number, number] = [595, 842]): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let index = 1; index <= pageCount; index += 1) {
    const page = document.addPage(size);
    page.drawText(`Page ${index}`, { x: 10, y: size[1] - 40, size: Math.min(24, size[0] / 5), font });
  }
  return document.save();
}

/** `bytes` re-saved by mupdf with AES-256 encryption; without `userPassword` it opens without one. */
export async function encryptPdf(
  bytes: Uint8Array,
  passwords: { userPassword?: string; ownerPassword: string },
): Promise<Uint8Array> {
  const mupdf = await loadMupdf();
  const document = new mupdf.PDFDocument(bytes);
  const user = passwords.userPassword ? `,user-password=${passwords.userPassword}` : '';
  const buffer = document.saveToBuffer(`encrypt=aes-256,owner-password=${passwords.ownerPassword}${user}`);
  const result = buffer.asUint8Array().slice();
  buffer.destroy();
  document.destroy();
  return result;
}

/** The text of every page of a PDF, read with mupdf. */
export async function pdfPageTexts(bytes: Uint8Array): Promise<string[]> {
  const mupdf = await loadMupdf();
  const document = mupdf.Document.openDocument(bytes, 'application/pdf');
  try {
    const texts: string[] = [];
    for (let index = 0; index < document.countPages(); index += 1) {
      const page = document.loadPage(index);
      const text = page.toStructuredText('preserve-whitespace');
      texts.push(text.asText().trim());
      text.destroy();
      page.destroy();
    }
    return texts;
  } finally {
    document.destroy();
  }
}

/**
 * A one-page PDF that costs seconds to draw: `strokes` long, wide, round-capped lines criss-crossing
 * the page (a few hundred bytes each, deflated). 300,000 strokes take tens of seconds in mupdf.
 */
export async function makeCostlyPdf(strokes: number): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const page = document.addPage([595, 842]);
  const lines: string[] = ['1 J 1 j 3 w'];
  let seed = 12345;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return (seed / 2147483648) * 842;
  };
  for (let index = 0; index < strokes; index += 1) {
    lines.push(`${next().toFixed(1)} ${next().toFixed(1)} m ${next().toFixed(1)} ${next().toFixed(1)} l S`);
  }
  const content = document.context.flateStream(lines.join('\n'));
  page.node.set(PDFName.of('Contents'), document.context.register(content));
  return document.save();
}

/**
 * A PDF of `pageCount` pages reading "Page n" whose page `pageNumber` names the catalog as its
 * `/Parent` instead of its page-tree node: a malformed entry mupdf ignores (it finds pages through
 * `/Kids`) and pdf-lib fails on when copying the page ("Parent.ascend is not a function").
 */
export async function makeMisparentedPdf(pageCount: number, pageNumber: number): Promise<Uint8Array> {
  const document = await PDFDocument.load(await makePdf(pageCount));
  const root = document.context.trailerInfo.Root;
  if (!root) throw new Error('pdf-lib wrote no catalog');
  document.getPage(pageNumber - 1).node.set(PDFName.of('Parent'), root);
  return document.save({ useObjectStreams: false });
}

/**
 * A PDF of `pageCount` pages reading "Page n" whose page tree claims `claimedPages` pages in its
 * `/Count` (a damaged or hand-edited file). mupdf opens it and counts the claimed pages until it
 * walks the tree; pdf-lib counts the real ones; neither can copy a page past the real ones.
 */
export async function makeOvercountedPdf(pageCount: number, claimedPages: number): Promise<Uint8Array> {
  const document = await PDFDocument.load(await makePdf(pageCount));
  document.catalog.Pages().set(PDFName.of('Count'), PDFNumber.of(claimedPages));
  return document.save({ useObjectStreams: false });
}
