// Lints the API descriptions the built server really serves: starts packages/server/dist on a
// loopback port with every optional route switched on, saves /openapi.json and /asyncapi.json to
// packages/server/dist/api-description/ (a fixed place, so that .redocly.lint-ignore.yaml can name
// them), and runs `redocly lint` on both with the repository's redocly.yaml.
// Run after `pnpm build`; `pnpm test` does.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { createApp, loadConfig, startServer } = await import(
  new URL('packages/server/dist/index.js', `file://${root}`).href
);

const output = path.join(root, 'packages', 'server', 'dist', 'api-description');
mkdirSync(output, { recursive: true });
const folder = mkdtempSync(path.join(tmpdir(), 'collab-api-lint-'));
let exitCode = 1;
try {
  const config = loadConfig({
    DATA_DIR: path.join(folder, 'data'),
    AUTH_JWT_SECRET: 'lint-only-secret-of-at-least-thirty-two-bytes',
    LOG_LEVEL: 'silent',
    // The converter changes no route; the convert endpoint adds some, so it is on.
    DOCUMENT_CONVERTER: 'none',
    DOCUMENT_CONVERT_ENDPOINT: 'true',
    PUBLIC_URL: 'https://collab.example.org',
  });
  const app = await createApp({ config });
  const running = await startServer(app, { host: '127.0.0.1', port: 0 });
  const files = [];
  try {
    for (const name of ['openapi.json', 'asyncapi.json']) {
      const response = await fetch(`http://127.0.0.1:${running.port}/${name}`);
      if (!response.ok) throw new Error(`GET /${name} answered ${response.status}`);
      const file = path.relative(root, path.join(output, name));
      writeFileSync(file, JSON.stringify(await response.json(), null, 2));
      files.push(file);
    }
  } finally {
    await running.stop(1_000);
  }
  const redocly = path.join(root, 'node_modules', '.bin', 'redocly');
  const result = spawnSync(
    redocly,
    ['lint', '--config', path.join(root, 'redocly.yaml'), '--format', 'stylish', ...files],
    {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  exitCode = result.status ?? 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
}
process.exit(exitCode);
