import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * What the headless Chromium tests share. Chromium gathers no ICE candidates on loopback, so each
 * such test file runs itself again inside a private network namespace (`unshare --net`) with a veth
 * pair (10.77.0.1/24 and 10.77.0.2/24): the servers, the SFU and the browsers live there, and no
 * packet leaves it.
 */

/** The Chromium the tests launch. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Whether this process is the run inside the namespace. */
export const inNamespace = process.env.BROWSER_NETNS_INNER === '1';
/** CI (`CI=true`, set by .ci/run) has every prerequisite: there a missing one fails instead of skipping. */
export const mustRun = process.env.CI === 'true';
const repositoryRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const builtServer = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** The two ends of the namespace's veth pair. */
export const vethAddresses = ['10.77.0.1', '10.77.0.2'] as const;

/**
 * Why this machine cannot run a namespace browser test (root, Chromium, `unshare --net`, and what
 * `needs` adds: HAProxy, the built server), or undefined. Inside the namespace: always undefined.
 */
export function missingPrerequisite(needs: { haproxy?: boolean; builtServer?: boolean } = {}) {
  if (inNamespace) return undefined;
  if (process.getuid?.() !== 0) return 'it must run as root to make a network namespace';
  if (!existsSync(chromiumPath)) return `there is no Chromium at ${chromiumPath} (set CHROMIUM_PATH)`;
  if (needs.haproxy && !existsSync('/usr/sbin/haproxy')) return 'HAProxy is not installed';
  if (needs.builtServer && !existsSync(builtServer))
    return 'packages/server/dist/main.js is missing: run pnpm build';
  if (spawnSync('unshare', ['--net', 'true']).status !== 0) return '`unshare --net` is not permitted here';
  return undefined;
}

const namespaceSetup = [
  'ip link set lo up',
  'ip link add v0 type veth peer name v1',
  `ip addr add ${vethAddresses[0]}/24 dev v0`,
  `ip addr add ${vethAddresses[1]}/24 dev v1`,
  'ip link set v0 up',
  'ip link set v1 up',
].join(' && ');

/** What the run inside the namespace printed and how it ended. */
export interface NamespaceRun {
  code: number | null;
  output: string;
}

/**
 * Runs `vitest run <testFile>` (a path from `import.meta.url`) again inside a new network namespace
 * with the veth pair, `BROWSER_NETNS_INNER=1` and `env` added to this process's environment. With
 * `defaultRoute`, the namespace also gets a default route into the pair: Firefox gathers no ICE
 * candidates at all on a host without one. A packet for any other address goes into the pair and
 * is dropped at its other end (the namespace forwards nothing), so still none leaves.
 */
export function runInNamespace(
  testFileUrl: string,
  env: Record<string, string> = {},
  options: { defaultRoute?: boolean } = {},
): Promise<NamespaceRun> {
  const testFile = path.relative(repositoryRoot, fileURLToPath(testFileUrl));
  const setup = options.defaultRoute ? `${namespaceSetup} && ip route add default dev v0` : namespaceSetup;
  return new Promise((resolve) => {
    const child = spawn(
      'unshare',
      ['--net', 'sh', '-c', `${setup} && exec node_modules/.bin/vitest run ${testFile}`],
      {
        cwd: repositoryRoot,
        env: { ...process.env, ...env, BROWSER_NETNS_INNER: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    const keep = (chunk: Buffer) => {
      output += chunk.toString();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Throws with the end of the inner run's output when it did not pass. */
export function expectInnerRunPassed(run: NamespaceRun): void {
  if (run.code !== 0)
    throw new Error(`the run inside the namespace failed (exit ${run.code}):\n${run.output.slice(-8000)}`);
}

/** Fake camera and microphone, no sandbox (root), nothing that calls outside. */
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--autoplay-policy=no-user-gesture-required',
  '--disable-features=WebRtcHideLocalIpsWithMdns',
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
];

/**
 * Launches headless Chromium (a fresh profile each time) with {@link chromiumArgs} and `extraArgs`;
 * `executablePath` may be a wrapper that starts it in another namespace.
 */
export function launchChromium(
  options: { executablePath?: string; extraArgs?: string[] } = {},
): Promise<Browser> {
  return chromium.launch({
    executablePath: options.executablePath ?? chromiumPath,
    headless: true,
    args: [...chromiumArgs, ...(options.extraArgs ?? [])],
  });
}

/** Prints a page's console errors (and all of it with `all`) with a short label. */
export function forwardConsole(page: Page, label: string, all = false): void {
  page.on('console', (message) => {
    if (all || message.type() === 'error') console.error(`[${label}] ${message.type()}: ${message.text()}`);
  });
}

/**
 * Reads `read` until `ok` holds (every 250 ms); throws naming `what` and the last value after
 * `timeoutMs` (generous: a bound for a stuck test, not a measurement).
 */
export async function until<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
    last = await read();
  }
  return last;
}

/** Runs a shell command and returns its output, throwing with its stderr when it fails. */
export function run(command: string): string {
  const result = spawnSync('sh', ['-c', command], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command}: ${result.stderr}`);
  return result.stdout;
}

/** A second network namespace joined to the test's by a veth pair, and a Chromium that starts in it. */
export interface SideNamespace {
  /** A wrapper script that runs Chromium inside the namespace (a `launchChromium` executablePath). */
  chromium: string;
  /** The veth end in the test's namespace (shape its egress with `tc`). */
  outerDevice: string;
  /** The veth end inside the side namespace. */
  innerDevice: string;
  /** The test namespace's address on the pair, and the side namespace's. */
  outerAddress: string;
  innerAddress: string;
  /** Runs a shell command inside the side namespace and returns its output. */
  runInside(command: string): string;
  close(): void;
}

/**
 * A second network namespace (a `sleep` holding it) joined to this one by a veth pair,
 * `<prefix>.1` here and `<prefix>.2` there (`/24`), and a wrapper that starts Chromium inside it:
 * traffic to that Chromium crosses the pair, whose ends a test can shape or re-address.
 */
export function sideNamespace(prefix: string, devices = { outer: 'w0', inner: 'w1' }): SideNamespace {
  const holder = spawn('unshare', ['--net', 'sleep', '3600'], { stdio: 'ignore' });
  const pid = holder.pid;
  if (pid === undefined) throw new Error('could not start the side namespace');
  const inside = `nsenter --net=/proc/${pid}/ns/net`;
  for (
    let attempt = 0;
    // Up to 30 s: `unshare` starting its `sleep` may take a while on a busy machine.
    attempt < 300 && spawnSync('sh', ['-c', `${inside} true`]).status !== 0;
    attempt += 1
  ) {
    spawnSync('sleep', ['0.1']);
  }
  const outerAddress = `${prefix}.1`;
  const innerAddress = `${prefix}.2`;
  run(`ip link add ${devices.outer} type veth peer name ${devices.inner}`);
  run(`ip link set ${devices.inner} netns ${pid}`);
  run(`ip addr add ${outerAddress}/24 dev ${devices.outer} && ip link set ${devices.outer} up`);
  const runInside = (command: string) => run(`${inside} sh -c '${command}'`);
  runInside(
    `ip link set lo up && ip addr add ${innerAddress}/24 dev ${devices.inner} && ip link set ${devices.inner} up`,
  );
  const wrapper = path.join(mkdtempSync(path.join(tmpdir(), 'side-namespace-')), 'chromium');
  writeFileSync(wrapper, `#!/bin/sh\nexec ${inside} ${chromiumPath} "$@"\n`, { mode: 0o755 });
  return {
    chromium: wrapper,
    outerDevice: devices.outer,
    innerDevice: devices.inner,
    outerAddress,
    innerAddress,
    runInside,
    close: () => {
      holder.kill();
      rmSync(path.dirname(wrapper), { recursive: true, force: true });
    },
  };
}
