// Preloaded into a server process (`node --import`) and, through it, into its worker threads: refuses
// DNS lookups of names other than `localhost` and UDP datagrams to addresses other than loopback, and
// records each attempt as a JSON line in NETWORK_GUARD_LOG, so a test can assert the process tried
// to reach nothing outside the machine.

import dgram from 'node:dgram';
import dns from 'node:dns';
import { appendFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { isMainThread, threadId } from 'node:worker_threads';

const logFile = process.env.NETWORK_GUARD_LOG;
if (!logFile) throw new Error('network-guard: NETWORK_GUARD_LOG is not set');

const record = (entry) => appendFileSync(logFile, `${JSON.stringify({ threadId, ...entry })}\n`);
const isLoopback = (address) =>
  address === 'localhost' ||
  address === '::1' ||
  /^127\.\d+\.\d+\.\d+$/.test(address) ||
  address === '::ffff:127.0.0.1';
const isLocalName = (hostname) => isIP(hostname) !== 0 || hostname === 'localhost';

const lookup = dns.lookup;
dns.lookup = function guardedLookup(hostname, options, callback) {
  if (isLocalName(String(hostname))) return lookup.call(this, hostname, options, callback);
  record({ kind: 'dns', hostname: String(hostname) });
  const done = typeof options === 'function' ? options : callback;
  const error = Object.assign(new Error(`network-guard refused to resolve ${hostname}`), {
    code: 'ENOTFOUND',
  });
  process.nextTick(() => done(error));
  return {};
};
const promisesLookup = dns.promises.lookup;
dns.promises.lookup = async function guardedPromisesLookup(hostname, options) {
  if (isLocalName(String(hostname))) return promisesLookup.call(this, hostname, options);
  record({ kind: 'dns', hostname: String(hostname) });
  throw Object.assign(new Error(`network-guard refused to resolve ${hostname}`), { code: 'ENOTFOUND' });
};

const send = dgram.Socket.prototype.send;
dgram.Socket.prototype.send = function guardedSend(...args) {
  const callback = typeof args.at(-1) === 'function' ? args.at(-1) : undefined;
  let address = args.slice(1).find((argument) => typeof argument === 'string');
  if (address === undefined) {
    try {
      address = this.remoteAddress().address;
    } catch {
      address = undefined;
    }
  }
  if (address === undefined || isLoopback(address)) return send.apply(this, args);
  record({ kind: 'udp', address });
  if (callback) process.nextTick(() => callback(new Error(`network-guard refused a datagram to ${address}`)));
};

record({ kind: 'loaded', mainThread: isMainThread });
