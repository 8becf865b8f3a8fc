// Shared by the packaging tests, which install our packed packages with npm into projects of their
// own: plain JavaScript with a declaration file beside it, like small-disk.js.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * better-sqlite3's install script asks prebuild-install for a prebuilt binary, downloaded from
 * GitHub, and compiles SQLite from source when it cannot have one: about 80 s of CPU on a machine
 * whose network reaches only the package registries, as CI's does. The workspace has that binary
 * already (pnpm built it once). This packs it as prebuild-install's own archive (`build/Release/
 * better_sqlite3.node` in `better-sqlite3-v<version>-node-v<abi>-<platform>-<arch>.tar.gz`) in a
 * temporary folder, and gives the environment that makes prebuild-install take it from there (its
 * "local prebuilds" setting) and the version to ask npm for, so that the two match. Undefined when
 * the workspace has no built binary (then npm builds as usual).
 *
 * @returns {{ version: string, env: Record<string, string> } | undefined}
 */
export function localBetterSqlitePrebuild() {
  const require = createRequire(
    fileURLToPath(new URL('../packages/chat-domain/package.json', import.meta.url)),
  );
  let packageFolder;
  try {
    packageFolder = path.dirname(require.resolve('better-sqlite3/package.json'));
  } catch {
    return undefined;
  }
  const binary = path.join(packageFolder, 'build/Release/better_sqlite3.node');
  if (!existsSync(binary) || process.platform !== 'linux') return undefined;
  const { version } = JSON.parse(readFileSync(path.join(packageFolder, 'package.json'), 'utf8'));
  const folder = mkdtempSync(path.join(tmpdir(), 'collab-prebuilds-'));
  const archive = `better-sqlite3-v${version}-node-v${process.versions.modules}-linux-${process.arch}.tar.gz`;
  execFileSync('tar', [
    '-czf',
    path.join(folder, archive),
    '-C',
    packageFolder,
    'build/Release/better_sqlite3.node',
  ]);
  return { version, env: { npm_config_better_sqlite3_local_prebuilds: folder } };
}
