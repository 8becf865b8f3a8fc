// Vitest global setup: generates the office sample documents once, before any test file runs, where
// LibreOffice is installed. On a fresh clone the generation takes a few minutes of `soffice`; done
// inside the first test that asks for a sample, it would spend that test's timeout and those of the
// test files waiting on the generation lock.
import { execFileSync } from 'node:child_process';

export default async function generateOfficeFixtures() {
  const soffice = process.env.SOFFICE_PATH ?? 'soffice';
  try {
    execFileSync(soffice, ['--version'], { stdio: 'ignore', timeout: 60_000 });
  } catch {
    return; // No LibreOffice: the tests that need it say so themselves.
  }
  const { generateFixtures } = await import('../packages/preview-core/test/fixtures/generate.mjs');
  const started = performance.now();
  const paths = await generateFixtures();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`office fixtures: ${Object.keys(paths).length} ready in ${seconds} s`);
}
