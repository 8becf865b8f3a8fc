import type { Socket } from 'node:dgram';
import { lookup } from 'node:dns/promises';

/** A nominated pair whose remote address is a host name, as {@link sendToNamedAddress} uses it. */
export interface NamedPair {
  remoteAddr: [string, number];
  packetsSent: number;
  bytesSent: number;
}

/** Per pair: the address its host name resolved to, looked up once for all its datagrams. */
const resolvedAddresses = new WeakMap<object, Promise<string | null>>();

/**
 * Sends `data` on `socket` to `pair`'s named host once the name resolved, after the pair's earlier
 * datagrams. Node's dgram looks a name up anew for every send, each lookup in the thread pool, so
 * datagrams sent one after the other left in whatever order their lookups finished. One lookup per
 * pair, which every send waits for in turn, keeps the order of the transport-wide numbers. A failed
 * lookup drops the datagrams waiting for it (UDP's fate, as dgram's own failed lookup) and the next
 * datagram looks the name up again. `data` is read later: the caller must not reuse it.
 */
export function sendToNamedAddress(socket: Socket, pair: NamedPair, data: Buffer): void {
  let resolved = resolvedAddresses.get(pair);
  if (resolved === undefined) {
    const [host] = pair.remoteAddr;
    const family = socket.address().family === 'IPv6' ? 6 : 4;
    const lookedUp: Promise<string | null> = lookup(host, { family }).then(
      (answer) => answer.address,
      () => {
        if (resolvedAddresses.get(pair) === lookedUp) resolvedAddresses.delete(pair);
        return null;
      },
    );
    resolved = lookedUp;
    resolvedAddresses.set(pair, resolved);
  }
  resolved.then((address) => {
    if (address === null) return;
    try {
      socket.send(data, pair.remoteAddr[1], address);
    } catch {
      // A socket closed while the name was looked up: the transport is going away.
      return;
    }
    pair.packetsSent += 1;
    pair.bytesSent += data.length;
  });
}
