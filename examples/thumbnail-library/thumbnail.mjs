// Makes a thumbnail of an image file with @collab-suite/preview-core, no HTTP involved.
// Usage (after `pnpm build` at the root): node thumbnail.mjs <input> <output.png|.jpg> [area] [rounded]
import { readFile, writeFile } from 'node:fs/promises';
import { createPreviewService, PreviewError } from '@collab-suite/preview-core';

const [input, output, area = '256x256', shape = 'rectangular'] = process.argv.slice(2);
if (!input || !output) {
  console.error(
    'usage: node thumbnail.mjs <input> <output.png|.jpg> [area like 256x256] [rounded|rectangular]',
  );
  process.exit(64);
}

const previews = createPreviewService({ limits: { maxConcurrentRenders: 2 } });
try {
  const thumbnail = await previews.imageThumbnail(await readFile(input), {
    area,
    shape,
    outputFormat: output.endsWith('.png') ? 'png' : 'jpeg',
  });
  await writeFile(output, thumbnail.data);
  console.log(`${output}: ${thumbnail.format} ${thumbnail.width}x${thumbnail.height}`);
} catch (error) {
  // Every refusal of the library is a PreviewError with a closed set of codes.
  if (error instanceof PreviewError) {
    console.error(`refused (${error.code}): ${error.message}`);
    process.exit(1);
  }
  throw error;
}
