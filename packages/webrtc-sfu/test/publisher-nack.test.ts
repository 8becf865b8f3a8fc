import { describe, expect, it } from 'vitest';
import type { GenericNack, RtpHeader } from 'werift';
import { VideoTestPublisher, waitFor } from '../src/testing/index.js';
import { publishVideo, sfuTestBed } from './support/sfu-test-bed.js';

// The SFU asks a publisher for lost video packets with its own requester per SSRC (werift's handler
// asked ten times within 50 ms and then gave up, so a lost retransmission was never asked for again
// on a link slower than that). It asks at once, again 100 ms later while the packet stays missing,
// and keeps no timer once nothing is missing.

const bed = sfuTestBed();

/** What this test reads of the receiver's NACK handler (the SFU's per-SSRC requesters). */
interface NackHandlerView {
  asking: boolean;
  onPacketLost: { subscribe(listener: (nack: GenericNack) => void): unknown };
}

/** What {@link dropPackets} dropped and let through. */
interface Drops {
  dropped: number[];
  retransmissionsDropped: number;
  retransmissionsPassed: number;
}

/**
 * Drops the packets the publisher's transport sends on its media SSRC for which `drop` (given the
 * packet's count, from 1, and sequence number) says so, and the first `retransmissionsLost`
 * retransmissions that repair each.
 */
function dropPackets(
  publisher: VideoTestPublisher,
  drop: (count: number, sequenceNumber: number) => boolean,
  retransmissionsLost = 0,
): Drops {
  const sender = publisher.peer.getTransceivers()[0]?.sender;
  const transport = sender?.dtlsTransport;
  if (sender === undefined || transport === undefined) throw new Error('the publisher has no transport');
  const result: Drops = { dropped: [], retransmissionsDropped: 0, retransmissionsPassed: 0 };
  const lostAgain = new Map<number, number>();
  const sendRtp = transport.sendRtp.bind(transport);
  let sent = 0;
  transport.sendRtp = (payload: Buffer, header: RtpHeader) => {
    // A retransmission: the packet again, or RTX, whose payload starts with the number it repairs (RFC 4588).
    const repaired =
      header.ssrc === sender.rtxSsrc && payload.length >= 2 ? payload.readUInt16BE(0) : header.sequenceNumber;
    if (header.ssrc !== sender.ssrc && header.ssrc !== sender.rtxSsrc) return sendRtp(payload, header);
    if (result.dropped.includes(repaired)) {
      const lost = lostAgain.get(repaired) ?? 0;
      if (lost < retransmissionsLost) {
        lostAgain.set(repaired, lost + 1);
        result.retransmissionsDropped += 1;
        return Promise.resolve(0);
      }
      result.retransmissionsPassed += 1;
    } else if (header.ssrc === sender.ssrc) {
      sent += 1;
      if (drop(sent, header.sequenceNumber)) {
        result.dropped.push(header.sequenceNumber);
        return Promise.resolve(0);
      }
    }
    return sendRtp(payload, header);
  };
  return result;
}

async function publishWithLoss(
  name: string,
  drop: (count: number, sequenceNumber: number) => boolean,
  retransmissionsLost: number,
  firstSequenceNumber?: number,
) {
  const router = bed.start().createRouter(name);
  const publisher = bed.track(new VideoTestPublisher({ firstSequenceNumber }));
  await publishVideo(router, 'alice', publisher);
  const drops = dropPackets(publisher, drop, retransmissionsLost);
  publisher.start({ bitrate: 300_000 });
  await waitFor(
    () => router.getProducer('alice', 'video')?.layers[0]?.receiver !== undefined,
    'the receiver',
  );
  const receiver = router.getProducer('alice', 'video')?.layers[0]?.receiver;
  const nack = (receiver as unknown as { nack: NackHandlerView }).nack;
  const asked: number[] = [];
  nack.onPacketLost.subscribe((feedback) => asked.push(...feedback.lost));
  return { publisher, drops, nack, asked };
}

describe("the SFU's NACKs for a publisher's video", () => {
  it('asks once for a lost packet that its first retransmission repairs, and keeps no timer afterwards', async () => {
    const { publisher, drops, nack, asked } = await publishWithLoss(
      'publisher-nack',
      (count) => count === 40,
      0,
    );
    await waitFor(() => drops.retransmissionsPassed >= 1, 'the retransmission');
    expect(asked).toEqual(drops.dropped);
    await waitFor(() => !nack.asking, 'no request pending');
    publisher.stop();
  });

  it('asks again for a packet whose retransmission was lost too, until it comes', async () => {
    const { publisher, drops, nack, asked } = await publishWithLoss(
      'publisher-nack-again',
      (count) => count === 40,
      2,
    );
    await waitFor(() => drops.retransmissionsPassed >= 1, 'the third retransmission through');
    expect(drops.retransmissionsDropped).toBe(2);
    expect(asked).toEqual([drops.dropped[0], drops.dropped[0], drops.dropped[0]]);
    await waitFor(() => !nack.asking, 'no request pending');
    publisher.stop();
  });

  it('asks for a packet lost at the 16-bit sequence wrap, and for losses after it', async () => {
    // werift's handler compared numbers without the wrap: after losing 65,535 it saw no loss for a
    // whole cycle of sequence numbers.
    const lost = new Set([65_535, 20]);
    const { publisher, drops, nack, asked } = await publishWithLoss(
      'publisher-nack-wrap',
      (_count, sequenceNumber) => lost.has(sequenceNumber),
      0,
      65_400,
    );
    await waitFor(() => drops.retransmissionsPassed >= 2, 'both retransmissions');
    expect(drops.dropped).toEqual([65_535, 20]);
    expect(asked).toEqual([65_535, 20]);
    await waitFor(() => !nack.asking, 'no request pending');
    publisher.stop();
  });
});
