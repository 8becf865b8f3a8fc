import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type EjabberdConfigurationInput,
  ejabberdConfiguration,
  ejabberdConfigurationFromDocument,
  hs256JsonWebKey,
} from './ejabberd-configuration.js';
import { freeLoopbackPort } from './free-port.js';

/** Options of {@link startPrivateEjabberd}. */
export interface PrivateEjabberdOptions {
  /** The HS256 secret the server accepts as a JWT key (the API's `AUTH_JWT_SECRET`). */
  jwtSecret: string;
  /** The XMPP domain of users. @default "collab.test" */
  domain?: string;
  /** The MUC service's domain. @default "muc." + domain */
  mucDomain?: string;
  /** How long to wait for the server to answer. @default 60000 (ejabberd takes ~6 s on an idle machine) */
  startTimeoutMs?: number;
  /** Who may run API commands (see {@link EjabberdConfigurationInput.apiAccess}). @default 'loopback' */
  apiAccess?: EjabberdConfigurationInput['apiAccess'];
  /**
   * The text of a documented ejabberd.yml (the repository's `docs/deployment/ejabberd.yml`) to run,
   * with only names, ports and paths substituted ({@link ejabberdConfigurationFromDocument}).
   * @default the configuration {@link ejabberdConfiguration} generates
   */
  documentedConfiguration?: string;
}

/** An ejabberd of the test's own: own config, spool, log, ports, Erlang node and cookie. */
export interface PrivateEjabberd {
  domain: string;
  mucDomain: string;
  /** Base URL of mod_http_api, e.g. `http://127.0.0.1:40123/api`. */
  apiUrl: string;
  /** XMPP client-to-server URL, e.g. `xmpp://127.0.0.1:40124`. */
  c2sUrl: string;
  /** XMPP over WebSocket URL, e.g. `ws://127.0.0.1:40125/ws`. */
  webSocketUrl: string;
  /** The Erlang node name (unique per server). */
  nodeName: string;
  /** The folder holding config, spool and logs (removed by `stop`). */
  folder: string;
  /** Stops the server (its data stays) and resolves once the process is gone. */
  halt(): Promise<void>;
  /** Starts it again on the same ports and spool once halted; rooms and history are kept. */
  restart(): Promise<void>;
  /** Halts the server and removes its folder; idempotent. */
  stop(): Promise<void>;
}

/** The folder holding ejabberd's Erlang application (Debian puts it under the multiarch lib folder). */
function ejabberdLibraryFolder(): string {
  for (const parent of readdirSync('/usr/lib', { withFileTypes: true })) {
    if (!parent.isDirectory()) continue;
    const folder = join('/usr/lib', parent.name);
    try {
      if (readdirSync(folder).some((name) => /^ejabberd-\d/.test(name))) return folder;
    } catch {}
  }
  if (
    existsSync('/usr/lib/erlang/lib') &&
    readdirSync('/usr/lib/erlang/lib').some((n) => n.startsWith('ejabberd-'))
  ) {
    return '/usr/lib/erlang/lib';
  }
  throw new Error('ejabberd is not installed: run `pnpm system-deps` (Debian package ejabberd)');
}

async function waitUntilReady(
  apiUrl: string,
  exited: Promise<number | null>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  while (Date.now() < deadline) {
    if (gone) throw new Error('ejabberd exited while starting');
    try {
      const response = await fetch(`${apiUrl}/status`, { method: 'POST', body: '{}' });
      // Listeners open once the modules are up; a locked API (apiAccess by account) refuses the caller.
      if (
        [401, 403].includes(response.status) ||
        (response.ok && (await response.text()).includes('started'))
      )
        return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`ejabberd did not answer within ${timeoutMs} ms`);
}

/**
 * Starts ejabberd (the Debian package, run through `erl` directly: no systemd, no ejabberdctl) with
 * a generated configuration on free loopback ports: c2s, mod_http_api (loopback only) and XMPP over
 * WebSocket; JWT authentication with `jwtSecret`; persistent members-only MUC rooms with MAM.
 */
export async function startPrivateEjabberd(options: PrivateEjabberdOptions): Promise<PrivateEjabberd> {
  const domain = options.domain ?? 'collab.test';
  const mucDomain = options.mucDomain ?? `muc.${domain}`;
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const folder = mkdtempSync(join(tmpdir(), 'private-ejabberd-'));
  const [c2sPort, apiPort, webSocketPort] = [
    await freeLoopbackPort(),
    await freeLoopbackPort(),
    await freeLoopbackPort(),
  ];
  const nodeName = `collab_xmpp_${randomBytes(6).toString('hex')}`;
  const cookie = randomBytes(18).toString('hex');
  const jwkPath = join(folder, 'jwt.jwk');
  writeFileSync(jwkPath, JSON.stringify(hs256JsonWebKey(options.jwtSecret)), { mode: 0o600 });
  const configPath = join(folder, 'ejabberd.yml');
  const configurationInput: EjabberdConfigurationInput = {
    domain,
    mucDomain,
    jwkPath,
    c2sPort,
    apiPort,
    webSocketPort,
    ...(options.apiAccess ? { apiAccess: options.apiAccess } : {}),
  };
  writeFileSync(
    configPath,
    options.documentedConfiguration === undefined
      ? ejabberdConfiguration(configurationInput)
      : ejabberdConfigurationFromDocument(options.documentedConfiguration, configurationInput),
  );
  const libraries = ejabberdLibraryFolder();
  const apiUrl = `http://127.0.0.1:${apiPort}/api`;

  let child: ChildProcess | undefined;
  let exited: Promise<number | null> = Promise.resolve(null);
  const launch = async () => {
    child = spawn(
      'erl',
      [
        '-sname',
        nodeName,
        '-setcookie',
        cookie,
        '-noinput',
        '-kernel',
        'inet_dist_use_interface',
        '{127,0,0,1}',
      ]
        .concat(['-mnesia', 'dir', JSON.stringify(join(folder, 'spool'))])
        .concat(['-s', 'ejabberd']),
      {
        cwd: folder,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: {
          ...process.env,
          HOME: folder,
          ERL_LIBS: libraries,
          ERL_EPMD_ADDRESS: '127.0.0.1',
          EJABBERD_CONFIG_PATH: configPath,
          EJABBERD_LOG_PATH: join(folder, 'ejabberd.log'),
          ERL_CRASH_DUMP: join(folder, 'erl_crash.dump'),
        },
      },
    );
    const running = child;
    // A test process that ends without stopping its server (a failed hook, a timeout) takes it along.
    const killOnExit = () => running.kill('SIGKILL');
    process.once('exit', killOnExit);
    exited = new Promise((resolve) =>
      running.once('exit', (code) => {
        process.off('exit', killOnExit);
        resolve(code);
      }),
    );
    try {
      await waitUntilReady(apiUrl, exited, timeoutMs);
    } catch (error) {
      await halt();
      throw new Error(`${(error as Error).message}; see ${join(folder, 'ejabberd.log')}`);
    }
  };
  const halt = async () => {
    const running = child;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    running.kill('SIGTERM');
    const killer = setTimeout(() => running.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  };
  await launch();
  let stopped: Promise<void> | undefined;
  return {
    domain,
    mucDomain,
    apiUrl,
    c2sUrl: `xmpp://127.0.0.1:${c2sPort}`,
    webSocketUrl: `ws://127.0.0.1:${webSocketPort}/ws`,
    nodeName,
    folder,
    halt,
    async restart() {
      await halt();
      await launch();
    },
    stop() {
      stopped ??= halt().then(() => rmSync(folder, { recursive: true, force: true }));
      return stopped;
    },
  };
}
