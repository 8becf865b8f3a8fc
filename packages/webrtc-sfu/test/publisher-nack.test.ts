import { describe, expect, it } from 'vitest';
import type { GenericNack, RtpHeader } from 'werift';
import { VideoTestPublisher, waitFor } from '../src/testing/index.js';
import { publishVideo, sfuTestBed } from './support/sfu-test-bed.js';

// werift's receiver asks for lost video packets from a 5 ms loop that should stop once nothing is
// lost. Unpatched, the loop awaited a promise that never settles when there is nothing to ask for,
// so it ran for the life of the connection after the first loss.

const bed = sfuTestBed();

/** What this test reads of werift's receiver NACK handler (private in its type declarations). */
interface NackHandlerView {
  nackLoop: unknown;
  onPacketLost: { subscribe(listener: (nack: GenericNack) => void): unknown };
}

/** Drops the `dropAt`-th RTP packet (1-based) the publisher's transport sends on its media SSRC, once. */
function dropOnePacket(publisher: VideoTestPublisher, dropAt: number): { dropped: number | undefined } {
  const sender = publisher.peer.getTransceivers()[0]?.sender;
  const transport = sender?.dtlsTransport;
  if (sender === undefined || transport === undefined) throw new Error('the publisher has no transport');
  const result: { dropped: number | undefined } = { dropped: undefined };
  const sendRtp = transport.sendRtp.bind(transport);
  let sent = 0;
  transport.sendRtp = (payload: Buffer, header: RtpHeader) => {
    if (header.ssrc === sender.ssrc && result.dropped === undefined) {
      sent += 1;
      if (sent === dropAt) {
        result.dropped = header.sequenceNumber;
        return Promise.resolve(0);
      }
    }
    return sendRtp(payload, header);
  };
  return result;
}

describe("the SFU's NACK loop for a publisher's video", () => {
  it('stops once the one lost packet was retransmitted or given up', async () => {
    const router = bed.start().createRouter('publisher-nack');
    const publisher = bed.track(new VideoTestPublisher());
    await publishVideo(router, 'alice', publisher);
    const drop = dropOnePacket(publisher, 40);
    publisher.start({ bitrate: 300_000 });
    await waitFor(
      () => router.getProducer('alice', 'video')?.layers[0]?.receiver !== undefined,
      'the receiver',
    );
    const receiver = router.getProducer('alice', 'video')?.layers[0]?.receiver;
    const nack = (receiver as unknown as { nack: NackHandlerView }).nack;
    const asked: number[] = [];
    nack.onPacketLost.subscribe((feedback) => asked.push(...feedback.lost));

    await waitFor(() => asked.length > 0, 'a NACK from the SFU');
    expect(asked).toContain(drop.dropped);
    publisher.stop();
    await waitFor(() => nack.nackLoop === undefined, 'the NACK loop cleared');
  });
});
