import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { normaliseStoredFileRef, type StoredFileRef } from '@collab-suite/preview-core';

/** Posts `bytes` as the multipart field `field` (default `file`) and returns the response. */
export function upload(
  url: string,
  bytes: Uint8Array,
  options: { field?: string; fileName?: string; type?: string } = {},
): Promise<Response> {
  const form = new FormData();
  form.append(
    options.field ?? 'file',
    new Blob([bytes], { type: options.type ?? 'application/octet-stream' }),
    options.fileName ?? 'upload.bin',
  );
  return fetch(url, { method: 'POST', body: form });
}

/** The body of a response as bytes. */
export async function bodyBytes(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

/** Writes a stored file where the disk adapter reads it: `<directory>/<serviceType>/<id>/<version>`. */
export async function storeFile(directory: string, ref: StoredFileRef, bytes: Uint8Array): Promise<void> {
  const normalised = normaliseStoredFileRef(ref);
  const folder = path.join(directory, normalised.serviceType, normalised.id);
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, String(normalised.version)), bytes);
}

/** The `detail` text of a `{ detail }` error body; for a 422 list, its messages joined by `; `. */
export async function detailOf(response: Response): Promise<string> {
  const body = (await response.json()) as { detail?: string | { msg: string }[] };
  if (Array.isArray(body.detail)) return body.detail.map((issue) => issue.msg).join('; ');
  return body.detail ?? '';
}
