import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { loadNativeAddon } from '../src/rtp/native-addon.js';
import { sendDatagramNatively } from '../src/rtp/native-datagram.js';

// The addon's send goes straight to the descriptor of a socket Node opened: what arrives must be
// what was given, and whatever it cannot send (no literal address, a closed socket, a failure)
// must be left to dgram, never thrown or sent on a descriptor the socket no longer owns.

const native = loadNativeAddon();
// Outside CI a machine without a compiler has no addon: the SFU then never takes this path.
const available = native?.sendDatagram !== undefined;

const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) {
    try {
      socket.close();
    } catch {
      // Closed by the test.
    }
  }
});

async function bound(type: 'udp4' | 'udp6', address: string): Promise<Socket> {
  const socket = createSocket(type);
  sockets.push(socket);
  socket.bind(0, address);
  await once(socket, 'listening');
  return socket;
}

describe.skipIf(!available && process.env.CI !== 'true')('native datagram send', () => {
  it('is available on this machine (CI builds the addon)', () => {
    expect(available).toBe(true);
  });

  for (const [type, address] of [
    ['udp4', '127.0.0.1'],
    ['udp6', '::1'],
  ] as const) {
    it(`delivers the datagram byte for byte over ${type}`, async () => {
      const sender = await bound(type, address);
      const receiver = await bound(type, address);
      const pair = { remoteAddr: [address, receiver.address().port] as [string, number] };
      const data = Buffer.from(Array.from({ length: 1200 }, (_, index) => index % 251));
      const arrived = once(receiver, 'message');
      // Only the first 1,000 bytes of a larger buffer, as the SFU sends a view of its scratch buffer.
      expect(sendDatagramNatively(sender, pair, data.subarray(0, 1000))).toBe(true);
      const [message, from] = (await arrived) as [Buffer, { port: number }];
      expect(message.equals(data.subarray(0, 1000))).toBe(true);
      expect(from.port).toBe(sender.address().port);
    });
  }

  it('leaves an address that is not an IP literal to dgram', async () => {
    const sender = await bound('udp4', '127.0.0.1');
    expect(sendDatagramNatively(sender, { remoteAddr: ['localhost', 9] }, Buffer.alloc(10))).toBe(false);
  });

  it('never sends on the descriptor of a closed socket', async () => {
    const sender = await bound('udp4', '127.0.0.1');
    const receiver = await bound('udp4', '127.0.0.1');
    const pair = { remoteAddr: ['127.0.0.1', receiver.address().port] as [string, number] };
    expect(sendDatagramNatively(sender, pair, Buffer.alloc(10))).toBe(true);
    sender.close();
    await once(sender, 'close');
    // A socket opened now may get the closed one's descriptor number.
    await bound('udp4', '127.0.0.1');
    expect(sendDatagramNatively(sender, pair, Buffer.alloc(10))).toBe(false);
  });

  it('leaves a pair the system refuses to dgram from then on, without throwing', async () => {
    const sender = await bound('udp4', '127.0.0.1');
    // An IPv6 destination on an IPv4 socket: the system refuses it.
    const pair = { remoteAddr: ['::1', 9] as [string, number] };
    expect(sendDatagramNatively(sender, pair, Buffer.alloc(10))).toBe(false);
    expect(sendDatagramNatively(sender, pair, Buffer.alloc(10))).toBe(false);
  });

  it('refuses bad arguments with an error instead of reading past a buffer', () => {
    const address = native?.socketAddress?.('127.0.0.1', 9) as Buffer;
    expect(() => native?.sendDatagram?.(0, Buffer.alloc(4), 8, address)).toThrow(/length past the buffer/);
    expect(() => native?.sendDatagram?.(0, Buffer.alloc(4), 4, Buffer.alloc(3))).toThrow(/wrong size/);
    expect(native?.socketAddress?.('not an address', 9)).toBeNull();
  });
});
