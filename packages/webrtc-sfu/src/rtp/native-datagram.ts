import type { Socket } from 'node:dgram';
import { loadNativeAddon } from './native-addon.js';

/** What Node's `dgram` keeps of a socket's libuv handle: gone (`null`) once the socket closed. */
interface DatagramSocketState {
  handle: { fd?: number } | null;
}

/** The symbol under which Node 20-24 keep a `dgram` socket's state; `null` where it is not found. */
let stateSymbol: symbol | null | undefined;
/** Per nominated pair: its remote address as the addon takes it, or `null` to send with `dgram`. */
const addresses = new WeakMap<object, Buffer | null>();
/** Per libuv handle (a new one for every socket opened): its file descriptor. */
const descriptors = new WeakMap<object, number>();
/** Sockets whose `dgram` queue may hold datagrams: ours wait behind them. */
const queueingSockets = new WeakSet<Socket>();

/**
 * Sends `data` to `pair`'s remote address on `socket` through the native addon, in one system call
 * and without `dgram`'s per-datagram request object. Returns true when the datagram was sent (the
 * system copied it), false when the caller is to send it with `dgram` instead: no addon, an address
 * that is not an IP literal, a socket whose `dgram` queue holds datagrams (order is kept), a full
 * send buffer (`dgram` queues it), a closed socket or an error (`dgram` reports it).
 */
export function sendDatagramNatively(
  socket: Socket,
  pair: { remoteAddr: [string, number] },
  data: Buffer,
): boolean {
  const native = loadNativeAddon();
  if (native?.sendDatagram === undefined || native.socketAddress === undefined) return false;
  let address = addresses.get(pair);
  if (address === undefined) {
    address = native.socketAddress(pair.remoteAddr[0], pair.remoteAddr[1]);
    addresses.set(pair, address);
  }
  if (address === null) return false;
  if (queueingSockets.has(socket)) {
    if (socket.getSendQueueCount() > 0) return false;
    queueingSockets.delete(socket);
  }
  const descriptor = descriptorOf(socket);
  if (descriptor === undefined) return false;
  const sent = native.sendDatagram(descriptor, data, data.length, address);
  if (sent >= 0) return true;
  if (sent === native.DATAGRAM_WOULD_BLOCK) queueingSockets.add(socket);
  // Any other failure: dgram sends this pair's datagrams from now on, and reports what fails.
  else addresses.set(pair, null);
  return false;
}

/** The socket's file descriptor while it is open, read from the handle `dgram` keeps. */
function descriptorOf(socket: Socket): number | undefined {
  if (stateSymbol === undefined) {
    stateSymbol =
      Object.getOwnPropertySymbols(socket).find((symbol) => symbol.description === 'state symbol') ?? null;
  }
  if (stateSymbol === null) return undefined;
  const handle = (socket as unknown as Record<symbol, DatagramSocketState | undefined>)[stateSymbol]?.handle;
  // No handle: the socket closed, and its descriptor may already belong to another file.
  if (handle === null || handle === undefined) return undefined;
  let descriptor = descriptors.get(handle);
  if (descriptor === undefined) {
    if (typeof handle.fd !== 'number' || handle.fd < 0) return undefined;
    descriptor = handle.fd;
    descriptors.set(handle, descriptor);
  }
  return descriptor;
}
