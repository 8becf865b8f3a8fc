import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freeLoopbackPort } from '@collab-suite/chat-domain/testing';

/** The site configuration that docs/deployment.md tells operators to install. */
export const documentedSiteFile = fileURLToPath(
  new URL('../../../../docs/deployment/nginx.conf', import.meta.url),
);

/** Debian's nginx running the documented site configuration in the foreground. */
export interface RunningNginx {
  /** The TLS server (`listen 443 ssl` in the documented file). */
  readonly httpsUrl: string;
  /** The plain HTTP server that redirects to HTTPS (`listen 80`). */
  readonly httpUrl: string;
  /** The self-signed certificate nginx presents, for clients to trust. */
  readonly certificate: string;
  /** nginx's error log so far, for failure messages. */
  errors(): string;
  stop(): Promise<void>;
}

/**
 * Replaces what `pattern` matches in the documented configuration, which must match exactly once:
 * when the documentation changes shape, the test says which line it no longer finds instead of
 * quietly testing something else.
 */
function replaceOnce(text: string, pattern: RegExp, replacement: string): string {
  const count = text.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
  if (count !== 1) {
    throw new Error(`expected ${pattern} once in ${documentedSiteFile} but found it ${count} times`);
  }
  return text.replace(pattern, () => replacement);
}

/**
 * The documented site with only addresses and paths changed: the upstream is `ports.upstream`, the
 * servers listen on loopback ports, the certificate is a generated one. Locations, headers and
 * limits stay exactly as documented.
 */
export function siteForTest(
  documented: string,
  ports: { upstream: number; http: number; https: number },
  tls: { certificate: string; key: string },
): string {
  const substitutions: [RegExp, string][] = [
    [/server 127\.0\.0\.1:8080;/, `server 127.0.0.1:${ports.upstream};`],
    [/listen 80;/, `listen 127.0.0.1:${ports.http};`],
    [/listen \[::\]:80;/, ''],
    [/listen 443 ssl http2;/, `listen 127.0.0.1:${ports.https} ssl http2;`],
    [/listen \[::\]:443 ssl http2;/, ''],
    [/ssl_certificate\s+\S+;/, `ssl_certificate ${tls.certificate};`],
    [/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${tls.key};`],
  ];
  return substitutions.reduce(
    (site, [pattern, replacement]) => replaceOnce(site, pattern, replacement),
    documented,
  );
}

/** The main nginx.conf Debian would provide, reduced to a prefix of its own under `folder`. */
function mainConfiguration(folder: string): string {
  const temp = (name: string) => `${name}_temp_path ${path.join(folder, name)};`;
  return [
    'daemon off;',
    'worker_processes 1;',
    // As root, workers run as root too: they write temporary files under this test's own folder.
    ...(process.getuid?.() === 0 ? ['user root;'] : []),
    `pid ${path.join(folder, 'nginx.pid')};`,
    `error_log ${path.join(folder, 'error.log')} notice;`,
    'events { worker_connections 256; }',
    'http {',
    `  access_log ${path.join(folder, 'access.log')};`,
    `  ${temp('client_body')}`,
    `  ${temp('proxy')}`,
    `  ${temp('fastcgi')}`,
    `  ${temp('uwsgi')}`,
    `  ${temp('scgi')}`,
    `  include ${path.join(folder, 'site.conf')};`,
    '}',
    '',
  ].join('\n');
}

/** A self-signed certificate for 127.0.0.1, made with the openssl program. */
function selfSignedCertificate(folder: string): { certificate: string; key: string } {
  const certificate = path.join(folder, 'certificate.pem');
  const key = path.join(folder, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      certificate,
    ],
    { stdio: 'ignore' },
  );
  return { certificate, key };
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port`. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Spawns nginx on the configuration in `folder`; resolves once both ports accept connections. */
async function spawnNginx(folder: string, ports: { http: number; https: number }) {
  const program = existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
  const child: ChildProcess = spawn(program, ['-p', folder, '-c', path.join(folder, 'nginx.conf')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const errors = () => {
    const file = path.join(folder, 'error.log');
    return output + (existsSync(file) ? readFileSync(file, 'utf8') : '');
  };
  // A loaded machine may take a while to start nginx: wait for it, generously, not for a fixed time.
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      return { child, exited, errors, started: false };
    if ((await accepts(ports.https)) && (await accepts(ports.http)))
      return { child, exited, errors, started: true };
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`nginx did not accept connections within 30 s:\n${errors()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Starts Debian's nginx in the foreground (no daemon, its own prefix, pid file, logs and temporary
 * folders under a fresh temporary folder) with the documented site in front of the server listening
 * on 127.0.0.1:`upstreamPort`. Ports are picked free just before; a port taken in between is
 * retried with new ones.
 */
export async function startDocumentedNginx(upstreamPort: number): Promise<RunningNginx> {
  const folder = mkdtempSync(path.join(tmpdir(), 'collab-nginx-'));
  chmodSync(folder, 0o755);
  const tls = selfSignedCertificate(folder);
  const documented = readFileSync(documentedSiteFile, 'utf8');
  writeFileSync(path.join(folder, 'nginx.conf'), mainConfiguration(folder));
  for (let attempt = 1; ; attempt += 1) {
    const ports = { upstream: upstreamPort, http: await freeLoopbackPort(), https: await freeLoopbackPort() };
    writeFileSync(path.join(folder, 'site.conf'), siteForTest(documented, ports, tls));
    const { child, exited, errors, started } = await spawnNginx(folder, ports);
    if (!started) {
      if (attempt < 3 && /Address already in use/.test(errors())) continue;
      throw new Error(`nginx stopped at start:\n${errors()}`);
    }
    return {
      httpsUrl: `https://127.0.0.1:${ports.https}`,
      httpUrl: `http://127.0.0.1:${ports.http}`,
      certificate: readFileSync(tls.certificate, 'utf8'),
      errors,
      async stop() {
        // SIGQUIT: nginx's graceful stop.
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGQUIT');
        await exited;
        rmSync(folder, { recursive: true, force: true });
      },
    };
  }
}
