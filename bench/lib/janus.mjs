// Janus Gateway as the SFU benchmark's reference: installs Debian's `janus` when missing, starts a
// private instance with a configuration written to a temporary folder (HTTP transport on loopback,
// VideoRoom and AudioBridge only, event_loops = 2, no STUN server, host candidates on this host's
// own address only, see janusAddress), and talks to it over its HTTP API with long polling.
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './processes.mjs';

/** Installs Debian's janus package when `janus` is not on the PATH (the bench runs as root). */
export function ensureJanusInstalled() {
  if (existsSync('/usr/bin/janus')) return;
  console.log('# janus not found: apt-get install -y janus');
  try {
    execFileSync('apt-get', ['install', '-y', 'janus'], { stdio: 'inherit' });
  } catch {
    execFileSync('apt-get', ['update'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', 'janus'], { stdio: 'inherit' });
  }
}

function libraryFolder(kind) {
  const candidates = [
    `/usr/lib/x86_64-linux-gnu/janus/${kind}`,
    `/usr/lib/aarch64-linux-gnu/janus/${kind}`,
    `/usr/lib/janus/${kind}`,
  ];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found === undefined) throw new Error(`no janus ${kind} folder in ${candidates.join(', ')}`);
  return found;
}

/** A folder holding links to the named libraries only, so that Janus loads nothing else. */
function onlyLibraries(root, kind, names) {
  const folder = path.join(root, kind);
  mkdirSync(folder);
  const source = libraryFolder(kind);
  for (const name of names) {
    const file = readdirSync(source).find((entry) => entry === `${name}.so`);
    if (file === undefined) throw new Error(`janus ${kind} ${name} is not installed`);
    symlinkSync(path.join(source, file), path.join(folder, file));
  }
  return folder;
}

/**
 * The address Janus gathers on. Janus 1.1 leaves loopback out of its host candidates whatever
 * `ice_enforce_list` says, so it gets this machine's first IPv4 address instead: packets to one's
 * own address never leave the host (Linux delivers them through the loopback device).
 */
export function janusAddress() {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) if (entry.family === 'IPv4' && !entry.internal) return entry.address;
  }
  throw new Error('no IPv4 address besides loopback for Janus to gather on');
}

/** Starts a private Janus; resolves once its HTTP API answers. `stop()` ends it and removes its folder. */
export async function startJanus() {
  ensureJanusInstalled();
  const root = mkdtempSync(path.join(tmpdir(), 'bench-janus-'));
  const port = await freePort();
  const configs = path.join(root, 'configs');
  mkdirSync(configs);
  const plugins = onlyLibraries(root, 'plugins', ['libjanus_videoroom', 'libjanus_audiobridge']);
  const transports = onlyLibraries(root, 'transports', ['libjanus_http']);
  const empty = path.join(root, 'empty');
  mkdirSync(empty);
  const minPort = 20_000 + Math.floor(Math.random() * 20) * 1_000;
  writeFileSync(
    path.join(configs, 'janus.jcfg'),
    `general: {
  configs_folder = "${configs}"
  plugins_folder = "${plugins}"
  transports_folder = "${transports}"
  events_folder = "${empty}"
  loggers_folder = "${empty}"
  log_to_stdout = true
  debug_level = ${process.env.BENCH_JANUS_DEBUG_LEVEL ?? 3}
  session_timeout = 300
  event_loops = 2
  server_name = "bench"
}
media: {
  ipv6 = false
  rtp_port_range = "${minPort}-${minPort + 999}"
}
nat: {
  # No STUN server, no TURN; host candidates on this machine's own address only, full ICE over UDP.
  nice_debug = false
  full_trickle = false
  ice_lite = false
  ice_tcp = false
  ice_enforce_list = "${janusAddress()}"
  ignore_mdns = true
}
plugins: {
}
transports: {
}
events: {
  broadcast = false
}
`,
  );
  writeFileSync(
    path.join(configs, 'janus.transport.http.jcfg'),
    `general: {
  json = "plain"
  base_path = "/janus"
  http = true
  port = ${port}
  ip = "127.0.0.1"
  https = false
}
admin: {
  admin_http = false
}
`,
  );
  writeFileSync(path.join(configs, 'janus.plugin.videoroom.jcfg'), 'general: {\n}\n');
  writeFileSync(path.join(configs, 'janus.plugin.audiobridge.jcfg'), 'general: {\n}\n');
  const child = spawn('janus', ['--configs-folder', configs, '--config', path.join(configs, 'janus.jcfg')], {
    stdio: ['ignore', process.env.BENCH_JANUS_LOG ? 'inherit' : 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}/janus`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(root, { recursive: true, force: true });
  };
  for (let tries = 0; ; tries += 1) {
    if (child.exitCode !== null) throw new Error(`janus exited with ${child.exitCode} before listening`);
    const info = await fetch(`${url}/info`).catch(() => undefined);
    if (info?.status === 200) break;
    if (tries > 300) {
      await stop();
      throw new Error('janus never listened');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url, pid: child.pid, address: janusAddress(), stop };
}

/**
 * One Janus session over HTTP: `attach` gives plugin handles, `message` sends a plugin request and
 * resolves with its answer (synchronous `success`, or the asynchronous `event` of the same
 * transaction, whose `jsep` comes along). One long-poll loop receives every event of the session.
 */
export async function openJanusSession(url) {
  const post = async (target, body) => {
    const response = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, transaction: body.transaction ?? randomUUID() }),
    });
    return response.json();
  };
  const created = await post(url, { janus: 'create' });
  if (created.janus !== 'success') throw new Error(`janus create: ${JSON.stringify(created)}`);
  const sessionUrl = `${url}/${created.data.id}`;
  const waiting = new Map();
  let open = true;
  const poll = async () => {
    while (open) {
      let events;
      try {
        const response = await fetch(`${sessionUrl}?maxev=100&rid=${Date.now()}`);
        events = await response.json();
      } catch {
        if (open) await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      for (const event of Array.isArray(events) ? events : [events]) {
        if (event.janus !== 'event' || event.transaction === undefined) continue;
        const settle = waiting.get(event.transaction);
        if (settle === undefined) continue;
        waiting.delete(event.transaction);
        settle(event);
      }
    }
  };
  const polling = poll();
  return {
    async attach(plugin) {
      const attached = await post(sessionUrl, { janus: 'attach', plugin });
      if (attached.janus !== 'success') throw new Error(`janus attach: ${JSON.stringify(attached)}`);
      const handleUrl = `${sessionUrl}/${attached.data.id}`;
      return {
        async message(body, jsep) {
          const transaction = randomUUID();
          const event = new Promise((resolve) => waiting.set(transaction, resolve));
          const reply = await post(handleUrl, {
            janus: 'message',
            transaction,
            body,
            ...(jsep ? { jsep } : {}),
          });
          if (reply.janus === 'success') {
            waiting.delete(transaction);
            return { data: reply.plugindata?.data, jsep: reply.jsep };
          }
          if (reply.janus !== 'ack') throw new Error(`janus message: ${JSON.stringify(reply)}`);
          const answered = await event;
          const data = answered.plugindata?.data;
          if (data?.error !== undefined) throw new Error(`janus ${body.request}: ${data.error}`);
          return { data, jsep: answered.jsep };
        },
        /** Tells Janus the candidates in the SDP are all there are. */
        async endOfCandidates() {
          await post(handleUrl, { janus: 'trickle', candidate: { completed: true } });
        },
      };
    },
    async close() {
      open = false;
      await post(sessionUrl, { janus: 'destroy' }).catch(() => {});
      await polling;
    },
  };
}
