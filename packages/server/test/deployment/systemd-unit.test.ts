import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const unitFile = path.join(repositoryRoot, 'docs', 'deployment', 'collab-suite.service');
const installedAt = '/opt/collab-suite';
const systemdAnalyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((file) => existsSync(file));

/** The unit's `Key=value` lines (the last one wins, as systemd reads them). */
function settings(unit: string): Map<string, string> {
  const entries = unit
    .split('\n')
    .map((line) => /^([A-Za-z]+)=(.*)$/.exec(line.trim()))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => [match[1] ?? '', match[2] ?? ''] as const);
  return new Map(entries);
}

describe('the documented systemd unit', () => {
  const unit = readFileSync(unitFile, 'utf8');

  it('starts the server bin of the built checkout and does not restart after a configuration error', () => {
    const values = settings(unit);
    const [program, script] = (values.get('ExecStart') ?? '').split(' ');
    expect(program).toBe('/usr/bin/node');
    const bin = JSON.parse(readFileSync(path.join(repositoryRoot, 'packages/server/package.json'), 'utf8'))
      .bin as Record<string, string>;
    expect(script).toBe(path.posix.join(installedAt, 'packages/server', bin['collab-suite-server'] ?? ''));
    // 78 is the server's exit code for a configuration it refuses (main.ts).
    expect(values.get('RestartPreventExitStatus')).toBe('78');
    expect(readFileSync(path.join(repositoryRoot, 'packages/server/src/main.ts'), 'utf8')).toContain(
      'process.exit(78)',
    );
  });

  it('gives the server longer to stop than SHUTDOWN_TIMEOUT_MS, so systemd never has to kill it', () => {
    const stopSeconds = Number(settings(unit).get('TimeoutStopSec'));
    const { shutdownTimeoutMs } = loadConfig({ DATA_DIR: tmpdir() });
    expect(stopSeconds * 1000).toBeGreaterThan(shutdownTimeoutMs);
  });

  it.skipIf(systemdAnalyze === undefined && !process.env.CI)('passes systemd-analyze verify', async () => {
    if (systemdAnalyze === undefined) throw new Error('systemd-analyze is missing: install Debian systemd');
    // Only where Node is installed differs here: this process's node stands in for /usr/bin/node.
    const folder = mkdtempSync(path.join(tmpdir(), 'collab-unit-'));
    try {
      const copy = path.join(folder, 'collab-suite.service');
      writeFileSync(copy, unit.replace('ExecStart=/usr/bin/node', `ExecStart=${process.execPath}`));
      const { stdout, stderr } = await promisify(execFile)(systemdAnalyze, ['verify', copy]);
      expect(`${stdout}${stderr}`.trim()).toBe('');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
