import { afterEach, describe, expect, it } from 'vitest';
import type { CandidatePair, RTCPeerConnection } from 'werift';
import { startRestartedIce } from '../src/peer-factory.js';
import { localSdp, waitFor } from '../src/testing/index.js';
import {
  arrivedIntact,
  connectDirectSenderPair,
  type DirectSenderPair,
  sendBurst,
} from './support/direct-sender-pair.js';

// The SFU gathers UDP candidates only, but DirectRtpSender promises werift's own ICE send on any
// pair without a UDP socket: werift's ICE-TCP pairs (and TURN's) have a protocol without a
// `transport`. Two werift peers that may only pair over TCP on loopback drive that path for real.

let pair: DirectSenderPair | undefined;
afterEach(async () => {
  await pair?.close();
  pair = undefined;
});

const onLoopback = (candidatePair: CandidatePair) =>
  candidatePair.localCandidate.host === '127.0.0.1' && candidatePair.remoteCandidate.host === '127.0.0.1';
const overTcp = (candidatePair: CandidatePair) =>
  onLoopback(candidatePair) && candidatePair.localCandidate.transport.toLowerCase() === 'tcp';
const overUdp = (candidatePair: CandidatePair) =>
  onLoopback(candidatePair) && candidatePair.localCandidate.transport.toLowerCase() === 'udp';

function nominatedOf(peer: RTCPeerConnection) {
  return peer.iceTransports[0]?.connection.nominated;
}

/** Restarts ICE between the two peers, checking only the pairs `acceptPair` takes from now on. */
async function restartIce(connected: DirectSenderPair, acceptPair: (pair: CandidatePair) => boolean) {
  const { sending, receiving } = connected;
  for (const peer of [sending, receiving]) {
    for (const transport of peer.iceTransports) transport.connection.options.filterCandidatePair = acceptPair;
  }
  sending.restartIce();
  await receiving.setRemoteDescription({ type: 'offer', sdp: await localSdp(sending, 'offer') });
  const answer = await localSdp(receiving, 'answer');
  startRestartedIce(receiving);
  await sending.setRemoteDescription({ type: 'answer', sdp: answer });
  startRestartedIce(sending);
}

describe('direct send on a pair without a UDP socket (ICE-TCP)', () => {
  for (const nativeSrtp of [true, false]) {
    it(`hands every packet to werift's ICE send, decryptable and intact (srtp.native ${nativeSrtp})`, async () => {
      pair = await connectDirectSenderPair({ useTcp: true, acceptPair: overTcp }, { nativeSrtp });
      const nominated = nominatedOf(pair.sending);
      expect(nominated?.localCandidate.transport.toLowerCase()).toBe('tcp');
      const sentBefore = nominated?.packetsSent ?? 0;

      // Across the sequence number wrap, where the rollover counter werift keeps must advance.
      expect(sendBurst(pair, 65_500, 100).every((result) => result !== null)).toBe(true);
      // werift's ICE send counts a packet once its asynchronous send ran, never within send().
      expect(nominated?.packetsSent).toBe(sentBefore);
      const connected = pair;
      await waitFor(() => arrivedIntact(connected, 65_500, 100), '100 intact packets at the receiver');
    });
  }

  it('sends directly on the UDP socket again once an ICE restart nominates a UDP pair', async () => {
    pair = await connectDirectSenderPair({ useTcp: true, acceptPair: overTcp }, { nativeSrtp: true });
    sendBurst(pair, 1_000, 50);
    const connected = pair;
    await waitFor(() => arrivedIntact(connected, 1_000, 50), '50 intact packets over TCP');

    await restartIce(pair, overUdp);
    await waitFor(
      () => nominatedOf(connected.sending)?.localCandidate.transport.toLowerCase() === 'udp',
      'a UDP pair nominated after the restart',
      20_000,
    );
    const udpPair = nominatedOf(pair.sending);
    const sentBefore = udpPair?.packetsSent ?? 0;
    sendBurst(pair, 1_050, 50);
    // The direct path counts each datagram as the socket takes it, within send().
    expect(udpPair?.packetsSent).toBe(sentBefore + 50);
    await waitFor(() => arrivedIntact(connected, 1_050, 50), '50 intact packets over UDP');
  });
});
