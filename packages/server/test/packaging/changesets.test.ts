import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const changesetCli = fileURLToPath(new URL('../../../../node_modules/.bin/changeset', import.meta.url));

describe('changesets', () => {
  // `changeset version` refuses the whole release when one changeset names the server (private,
  // ignored in .changeset/config.json) together with a published package.
  it('plan a release: no changeset mixes the ignored server with a published package', async () => {
    const { stdout, stderr } = await run(changesetCli, ['status'], { cwd: repositoryRoot, timeout: 60_000 });
    expect(stderr).not.toMatch(/error/i);
    expect(stdout + stderr).toMatch(/Packages to be bumped|NO packages to be bumped/);
  }, 90_000);
});
