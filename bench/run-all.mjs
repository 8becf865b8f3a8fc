// Runs every benchmark in this folder one after the other (each prints its own ratios against a
// reference measured in the same run). `pnpm bench -- preview-images` runs only the named ones.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const folder = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2).filter((arg) => arg !== '--');
const scripts = readdirSync(folder)
  .filter((name) => name.endsWith('.mjs') && name !== 'run-all.mjs')
  .filter((name) => wanted.length === 0 || wanted.includes(name.replace(/\.mjs$/, '')))
  // The chaos run lasts ten minutes: only when named (`pnpm bench -- chaos`).
  .filter((name) => name !== 'chaos.mjs' || wanted.includes('chaos'));

let failed = 0;
for (const script of scripts) {
  console.log(`\n=== ${script} ===`);
  const result = spawnSync(process.execPath, ['--expose-gc', path.join(folder, script)], {
    stdio: 'inherit',
  });
  if (result.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
