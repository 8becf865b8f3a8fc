import { PreviewError } from '../errors.js';

/** The optional peer dependencies of preview-core and what each one is needed for. */
export const OPTIONAL_PEERS = {
  mupdf: { range: '^1.28.1', purpose: 'PDF and office-document previews (page rendering)' },
  'pdf-lib': { range: '^1.17.1', purpose: 'PDF and office-document previews (page selection)' },
} as const;

/** The name of an optional peer dependency of preview-core. */
export type OptionalPeer = keyof typeof OPTIONAL_PEERS;

function isMissingModule(error: unknown, name: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const missing = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
  return missing && typeof message === 'string' && message.includes(`'${name}'`);
}

/**
 * Turns the failure to import an optional peer into the library's error naming the package to install;
 * any other failure is rethrown as it is.
 * @throws {PreviewError} `MISSING_DEPENDENCY` with `details.package`.
 */
export function explainMissingPeer(name: OptionalPeer, error: unknown): never {
  if (!isMissingModule(error, name)) throw error;
  const { range, purpose } = OPTIONAL_PEERS[name];
  throw new PreviewError(
    'MISSING_DEPENDENCY',
    `expected the package "${name}" to be installed for ${purpose} but it is not: run \`npm install ${name}@${range}\``,
    { details: { package: name, range }, cause: error },
  );
}

/** pdf-lib's module type. */
export type PdfLib = typeof import('pdf-lib');

let pdfLib: Promise<PdfLib> | undefined;

/**
 * Imports pdf-lib once, the first time pages are copied.
 * @throws {PreviewError} `MISSING_DEPENDENCY` when pdf-lib is not installed.
 */
export function loadPdfLib(): Promise<PdfLib> {
  pdfLib ??= import('pdf-lib').catch((error: unknown) => {
    pdfLib = undefined;
    return explainMissingPeer('pdf-lib', error);
  });
  return pdfLib;
}
