import { describe, expect, it } from 'vitest';
import { ReceivedSequenceNumbers } from './received-sequence-numbers.js';
import { REPLAY_WINDOW_PACKETS } from './replay-window.js';

const ssrc = 0x1234;

function receiveAll(received: ReceivedSequenceNumbers, numbers: number[], from = ssrc): boolean[] {
  return numbers.map((sequenceNumber) => received.receive(from, sequenceNumber));
}

describe('ReceivedSequenceNumbers', () => {
  it('takes each number once, in order or late, and refuses a repeat', () => {
    const received = new ReceivedSequenceNumbers();
    expect(receiveAll(received, [10, 11, 13, 14])).toEqual([true, true, true, true]);
    // 12 comes late (a retransmission of a loss): new. Then copies of 11, 12 and 14: repeats.
    expect(receiveAll(received, [12, 11, 12, 14, 15])).toEqual([true, false, false, false, true]);
  });

  it('follows the numbers across the 16-bit wrap', () => {
    const received = new ReceivedSequenceNumbers();
    expect(receiveAll(received, [65_534, 65_535, 0, 1])).toEqual([true, true, true, true]);
    expect(receiveAll(received, [65_535, 0, 2, 65_533])).toEqual([false, false, true, true]);
  });

  it('refuses a packet older than the window, and starts anew far behind it or on a new SSRC', () => {
    const received = new ReceivedSequenceNumbers();
    const first = 1_000;
    const highest = first + REPLAY_WINDOW_PACKETS + 10;
    expect(receiveAll(received, [first, highest])).toEqual([true, true]);
    // Outside the window: refused even though it never arrived, as a browser's SRTP would.
    expect(received.receive(ssrc, first + 5)).toBe(false);
    // A sender that counts anew from far behind: taken, and so is what follows it.
    const restarted = (highest - 5 * REPLAY_WINDOW_PACKETS + 0x1_0000) % 0x1_0000;
    expect(receiveAll(received, [restarted, restarted + 1, restarted])).toEqual([true, true, false]);
    // Another SSRC has its own numbers: the same number is new there.
    expect(receiveAll(received, [restarted + 1, restarted + 1], 0x9999)).toEqual([true, false]);
  });
});
