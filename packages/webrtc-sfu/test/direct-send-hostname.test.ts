import { afterEach, describe, expect, it } from 'vitest';
import type { CandidatePair } from 'werift';
import { waitFor } from '../src/testing/index.js';
import {
  arrivedIntact,
  connectDirectSenderPair,
  type DirectSenderPair,
  sendBurst,
} from './support/direct-sender-pair.js';

// A remote candidate may name its host instead of giving an address. The name must be looked up
// before a datagram leaves, after send() returned: the direct sender must not reuse the buffer
// (with srtp.native, its scratch buffer) and must keep the packets in order. werift pairs a named
// candidate only with IPv6 local candidates, and a machine need not have a name for ::1 (this
// one's /etc/hosts names 127.0.0.1 only), so the peers connect over 127.0.0.1 and the test then
// names the nominated pair's remote host `localhost` before the first packet: the lookup, the
// socket and the receiver are real.

let pair: DirectSenderPair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

const onLoopbackUdp = (candidatePair: CandidatePair) =>
  candidatePair.localCandidate.host === '127.0.0.1' && candidatePair.remoteCandidate.host === '127.0.0.1';

/** Peers whose sending side's nominated pair names its remote host `localhost`. */
async function connectToNamedHost(nativeSrtp: boolean): Promise<DirectSenderPair> {
  const connected = await connectDirectSenderPair({ acceptPair: onLoopbackUdp }, { nativeSrtp });
  const nominated = connected.sending.iceTransports[0]?.connection.nominated;
  if (nominated === undefined) throw new Error('no nominated pair');
  nominated.remoteCandidate.host = 'localhost';
  return connected;
}

// Bursts stay under what the receiving socket buffers here (about 90 packets of this size).
const burst = 60;

describe('direct send to a remote address that is a host name', () => {
  for (const nativeSrtp of [true, false]) {
    it(`delivers every packet intact, decryptable and in order (srtp.native ${nativeSrtp})`, async () => {
      pair = await connectToNamedHost(nativeSrtp);
      // Across the sequence number wrap, where the rollover counter must advance.
      expect(sendBurst(pair, 65_500, burst).every((result) => result !== null)).toBe(true);
      const connected = pair;
      await waitFor(() => arrivedIntact(connected, 65_500, burst), `${burst} intact packets at the receiver`);
      // Loopback keeps the order datagrams left in; one lookup at a time per send used not to.
      const numbers = pair.received.map((packet) => packet.header.sequenceNumber);
      expect(numbers).toEqual(Array.from({ length: burst }, (_, index) => (65_500 + index) & 0xffff));
    });
  }

  it('keeps the order of packets sent before and after the name resolved', async () => {
    pair = await connectToNamedHost(true);
    sendBurst(pair, 2_000, burst / 2);
    const connected = pair;
    await waitFor(() => arrivedIntact(connected, 2_000, burst / 2), 'the first half');
    sendBurst(pair, 2_000 + burst / 2, burst / 2);
    await waitFor(() => arrivedIntact(connected, 2_000, burst), 'the second half');
    const numbers = pair.received.map((packet) => packet.header.sequenceNumber);
    expect(numbers).toEqual(Array.from({ length: burst }, (_, index) => 2_000 + index));
  });
});
