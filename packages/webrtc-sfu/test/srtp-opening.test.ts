import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  RtcpReceiverInfo,
  RtcpRrPacket,
  RtpHeader,
  SrtcpSession,
  SrtpAuthenticationError,
  SrtpSession,
} from 'werift';
import { REPLAY_WINDOW_PACKETS } from '../src/rtp/replay-window.js';
import {
  openWithNativeAddon,
  refuseReplaysInWerift,
  type SrtpTransportInternals,
} from '../src/rtp/srtp-opening.js';
import { nativeSrtpAvailable } from '../src/rtp/srtp-sealing.js';

// What the native addon unprotects must be exactly what werift's own decryption gives, for every
// packet werift's sender protects; a packet that is not authentic must be refused as werift refuses
// it, without moving the rollover counter. Whichever opens them, a replayed packet must be refused
// with the same error, and only authentic packets may count as seen.

const profiles = [
  { name: 'AES_CM_128_HMAC_SHA1_80', profile: 1, saltBytes: 14 },
  { name: 'AEAD_AES_128_GCM', profile: 7, saltBytes: 12 },
] as const;

type SessionConfig = ConstructorParameters<typeof SrtpSession>[0];

/** A sender's sessions, and two receivers of them: one left to werift, one opened natively. */
function endpoints(profile: number, saltBytes: number) {
  const local = { key: randomBytes(16), salt: randomBytes(saltBytes) };
  const remote = { key: randomBytes(16), salt: randomBytes(saltBytes) };
  const sending = {
    keys: {
      localMasterKey: local.key,
      localMasterSalt: local.salt,
      remoteMasterKey: remote.key,
      remoteMasterSalt: remote.salt,
    },
    profile,
  } as SessionConfig;
  const receiving = {
    keys: {
      localMasterKey: remote.key,
      localMasterSalt: remote.salt,
      remoteMasterKey: local.key,
      remoteMasterSalt: local.salt,
    },
    profile,
  } as SessionConfig;
  const receiver = () => ({ srtp: new SrtpSession(receiving), srtcp: new SrtcpSession(receiving) });
  const native = receiver();
  // Counts what reaches werift's own decryption once the addon took over.
  const fallbacks = { rtp: 0, rtcp: 0 };
  const weriftRtp = native.srtp.decrypt;
  const weriftRtcp = native.srtcp.decrypt;
  native.srtp.decrypt = (packet: Buffer) => {
    fallbacks.rtp += 1;
    return weriftRtp(packet);
  };
  native.srtcp.decrypt = (packet: Buffer) => {
    fallbacks.rtcp += 1;
    return weriftRtcp(packet);
  };
  return {
    sender: { srtp: new SrtpSession(sending), srtcp: new SrtcpSession(sending) },
    werift: receiver(),
    native,
    fallbacks,
  };
}

/** RTP headers with what a publisher sends: extensions, CSRCs, padding, a sequence number wrap. */
function headers(ssrc: number): { header: RtpHeader; payload: Buffer }[] {
  const packets: { header: RtpHeader; payload: Buffer }[] = [];
  for (const [index, sequenceNumber] of [65_533, 65_534, 65_535, 0, 1, 2].entries()) {
    const header = new RtpHeader({
      payloadType: 96,
      ssrc,
      sequenceNumber,
      timestamp: 90 * index,
      marker: index % 2 === 0,
      csrc: index === 1 ? [0x01020304, 0x05060708] : [],
      extensions:
        index === 2
          ? []
          : [
              { id: 1, payload: Buffer.from('a') },
              { id: 3, payload: Buffer.from([0, 1, 2]) },
            ],
    });
    let payload = randomBytes(index === 4 ? 0 : 200 + index * 300);
    if (index === 3) {
      // Padding: its last byte counts it, and both sides leave it to the RTP parser.
      header.padding = true;
      payload = Buffer.concat([payload, Buffer.from([0, 0, 3])]);
    }
    packets.push({ header, payload });
  }
  return packets;
}

const addonExpected = nativeSrtpAvailable() || process.env.CI === 'true';

describe.skipIf(!addonExpected)('native SRTP opening', () => {
  for (const { name, profile, saltBytes } of profiles) {
    it(`unprotects ${name} RTP exactly as werift does, across a sequence number wrap`, () => {
      const { sender, werift, native, fallbacks } = endpoints(profile, saltBytes);
      expect(openWithNativeAddon(native as unknown as SrtpTransportInternals)).toBe(true);
      for (const { header, payload } of headers(0x11223344)) {
        const protectedPacket = sender.srtp.encrypt(payload, header);
        const expected = werift.srtp.decrypt(protectedPacket);
        expect(native.srtp.decrypt(protectedPacket).equals(expected)).toBe(true);
      }
      expect(fallbacks.rtp).toBe(0);
    });

    it(`unprotects ${name} SRTCP exactly as werift does`, () => {
      const { sender, werift, native, fallbacks } = endpoints(profile, saltBytes);
      openWithNativeAddon(native as unknown as SrtpTransportInternals);
      for (let index = 0; index < 4; index++) {
        const report = new RtcpRrPacket({
          ssrc: 0x55667788,
          reports: [
            new RtcpReceiverInfo({
              ssrc: 0x11223344,
              fractionLost: index,
              packetsLost: index * 3,
              highestSequence: 1000 + index,
              jitter: 7,
              lsr: 0,
              dlsr: 0,
            }),
          ],
        }).serialize();
        const protectedPacket = sender.srtcp.encrypt(report);
        const opened = native.srtcp.decrypt(protectedPacket);
        expect(opened.equals(werift.srtcp.decrypt(protectedPacket))).toBe(true);
        expect(opened.equals(report)).toBe(true);
      }
      expect(fallbacks.rtcp).toBe(0);
    });

    it(`refuses a ${name} packet that is not authentic and keeps the rollover counter`, () => {
      const { sender, native, fallbacks } = endpoints(profile, saltBytes);
      openWithNativeAddon(native as unknown as SrtpTransportInternals);
      const packets = headers(0x0a0b0c0d).map(({ header, payload }) => sender.srtp.encrypt(payload, header));
      native.srtp.decrypt(packets[0] as Buffer);
      // Sequence number 0 after 65,533 would move the rollover counter, were it believed.
      const forged = Buffer.from(packets[3] as Buffer);
      forged[forged.length - 1] = (forged.at(-1) ?? 0) ^ 0xff;
      expect(() => native.srtp.decrypt(forged)).toThrow(SrtpAuthenticationError);
      expect(fallbacks.rtp).toBe(1);
      const tampered = Buffer.from(packets[1] as Buffer);
      tampered[30] = (tampered[30] ?? 0) ^ 1;
      expect(() => native.srtp.decrypt(tampered)).toThrow(SrtpAuthenticationError);
      // The genuine packets still open: the counter did not move.
      for (const packet of packets.slice(1)) expect(() => native.srtp.decrypt(packet)).not.toThrow();
      expect(fallbacks.rtp).toBe(2);
      const report = sender.srtcp.encrypt(new RtcpRrPacket({ ssrc: 1, reports: [] }).serialize());
      const badReport = Buffer.from(report);
      badReport[9] = (badReport[9] ?? 0) ^ 1;
      expect(() => native.srtcp.decrypt(badReport)).toThrow(SrtpAuthenticationError);
      expect(() => native.srtp.decrypt(Buffer.alloc(8))).toThrow(SrtpAuthenticationError);
    });
  }

  it('leaves a transport whose SRTP has not started to werift', () => {
    expect(openWithNativeAddon({})).toBe(false);
  });
});

/** Protected RTP packets of `ssrc` with these sequence numbers, sealed by `sender` in this order. */
function sealRtp(sender: SrtpSession, ssrc: number, sequenceNumbers: number[]): Buffer[] {
  return sequenceNumbers.map((sequenceNumber, index) =>
    sender.encrypt(
      randomBytes(120),
      new RtpHeader({ payloadType: 96, ssrc, sequenceNumber, timestamp: 3_000 * index }),
    ),
  );
}

/** `count` protected receiver reports from `ssrc`: SRTCP indexes 1 to `count`. */
function sealReports(sender: SrtcpSession, ssrc: number, count: number): Buffer[] {
  return Array.from({ length: count }, () =>
    sender.encrypt(new RtcpRrPacket({ ssrc, reports: [] }).serialize()),
  );
}

/** The error `open` threw, which must be the one werift's transport drops packets on. */
function refusal(open: () => unknown): SrtpAuthenticationError {
  try {
    open();
  } catch (error) {
    expect(error).toBeInstanceOf(SrtpAuthenticationError);
    return error as SrtpAuthenticationError;
  }
  throw new Error('expected the packet to be refused, but it was opened');
}

/** The rollover state werift keeps for `ssrc` of what `receiver` received. */
function rolloverState(receiver: { srtp: SrtpSession }, ssrc: number): unknown {
  const context = (receiver.srtp as unknown as Required<SrtpTransportInternals>['srtp']).remoteContext;
  return { ...context.srtpSSRCStates[ssrc] };
}

const openers = [
  { name: 'the native addon', open: openWithNativeAddon, skip: !addonExpected },
  { name: "werift's decryption", open: refuseReplaysInWerift, skip: false },
];

for (const opener of openers) {
  describe.skipIf(opener.skip)(`replay protection with ${opener.name}`, () => {
    for (const { name, profile, saltBytes } of profiles) {
      it(`refuses replayed ${name} RTP packets before decrypting them, keeping the rollover counter`, () => {
        const { sender, native: receiver, fallbacks } = endpoints(profile, saltBytes);
        expect(opener.open(receiver as unknown as SrtpTransportInternals)).toBe(true);
        const ssrc = 0x31323334;
        const packets = sealRtp(sender.srtp, ssrc, [65_533, 65_534, 65_535, 0, 1, 2, 150]);
        const received = packets.slice(0, 6);
        for (const packet of received) receiver.srtp.decrypt(packet);
        const stateBefore = rolloverState(receiver, ssrc);
        const decryptionsBefore = fallbacks.rtp;
        // Those from before the wrap last: werift's rollover count takes 65,535 after 2 for a late
        // packet of the previous rollover, so a replay that moved the state would leave it at 0.
        for (const packet of [...received.slice(3), ...received.slice(0, 3)]) {
          expect(refusal(() => receiver.srtp.decrypt(packet)).message).toMatch(/replayed/);
        }
        expect(rolloverState(receiver, ssrc)).toEqual(stateBefore);
        expect(fallbacks.rtp).toBe(decryptionsBefore);
        // 150 after 2 (147 packets lost): had a replay moved the rollover counter back to 0, werift
        // would not move it forward again for 150 and this packet would not authenticate.
        expect(() => receiver.srtp.decrypt(packets[6] as Buffer)).not.toThrow();
      });

      it(`opens ${name} RTP packets reordered within the window once each, and refuses older ones`, () => {
        const { sender, native: receiver } = endpoints(profile, saltBytes);
        opener.open(receiver as unknown as SrtpTransportInternals);
        const ssrc = 0x41424344;
        // The window's last packet is 73, and 72 is just out of it.
        const top = REPLAY_WINDOW_PACKETS + 72;
        const packets = sealRtp(
          sender.srtp,
          ssrc,
          Array.from({ length: top + 1 }, (_, sequenceNumber) => sequenceNumber),
        );
        const packet = (sequenceNumber: number) => packets[sequenceNumber] as Buffer;
        for (const sequenceNumber of [10, 13, 11, 12, top, top - 1, 73]) {
          expect(() => receiver.srtp.decrypt(packet(sequenceNumber))).not.toThrow();
        }
        // 72 is too old, although it never arrived.
        for (const sequenceNumber of [72, 73, top - 1, top, 12]) {
          expect(refusal(() => receiver.srtp.decrypt(packet(sequenceNumber))).message).toMatch(/replayed/);
        }
      });

      it(`refuses replayed ${name} SRTCP packets per sender SSRC, in any order`, () => {
        const { sender, native: receiver, fallbacks } = endpoints(profile, saltBytes);
        opener.open(receiver as unknown as SrtpTransportInternals);
        const [first, second, third, fourth] = sealReports(sender.srtcp, 0x51525354, 4) as [
          Buffer,
          Buffer,
          Buffer,
          Buffer,
        ];
        for (const report of [second, first, third]) {
          expect(() => receiver.srtcp.decrypt(report)).not.toThrow();
        }
        const decryptionsBefore = fallbacks.rtcp;
        for (const report of [first, second, third]) {
          expect(refusal(() => receiver.srtcp.decrypt(report)).message).toMatch(/replayed/);
        }
        expect(fallbacks.rtcp).toBe(decryptionsBefore);
        // Another sender's first report has SRTCP index 1 too.
        const [otherFirst] = sealReports(sender.srtcp, 0x61626364, 1) as [Buffer];
        expect(receiver.srtcp.decrypt(otherFirst).readUInt32BE(4)).toBe(0x61626364);
        expect(() => receiver.srtcp.decrypt(fourth)).not.toThrow();
      });

      it(`lets no forged ${name} packet mark its index as seen or move the window ahead`, () => {
        const { sender, native: receiver } = endpoints(profile, saltBytes);
        opener.open(receiver as unknown as SrtpTransportInternals);
        const [tenth, eleventh, twelfth] = sealRtp(sender.srtp, 0x71727374, [10, 11, 12]) as [
          Buffer,
          Buffer,
          Buffer,
        ];
        receiver.srtp.decrypt(tenth);
        const forged = Buffer.from(eleventh);
        forged[forged.length - 1] = (forged.at(-1) ?? 0) ^ 0xff;
        // Sequence number 3,000 would push 11 and 12 out of the window, were it believed.
        const farAhead = Buffer.from(twelfth);
        farAhead.writeUInt16BE(3_000, 2);
        for (const packet of [forged, forged, farAhead]) {
          expect(refusal(() => receiver.srtp.decrypt(packet)).message).not.toMatch(/replayed/);
        }
        expect(() => receiver.srtp.decrypt(eleventh)).not.toThrow();
        expect(() => receiver.srtp.decrypt(twelfth)).not.toThrow();

        const [firstReport, secondReport] = sealReports(sender.srtcp, 0x71727374, 2) as [Buffer, Buffer];
        receiver.srtcp.decrypt(firstReport);
        const forgedReport = Buffer.from(secondReport);
        forgedReport[9] = (forgedReport[9] ?? 0) ^ 1;
        // SRTCP index 0x7000_0000 (E flag kept) would push index 2 out of the window, were it believed.
        const indexAt = profile === 7 ? secondReport.length - 4 : secondReport.length - 14;
        const reportFarAhead = Buffer.from(secondReport);
        reportFarAhead.writeUInt32BE(
          ((reportFarAhead.readUInt32BE(indexAt) & 0x8000_0000) | 0x7000_0000) >>> 0,
          indexAt,
        );
        for (const report of [forgedReport, forgedReport, reportFarAhead]) {
          expect(refusal(() => receiver.srtcp.decrypt(report)).message).not.toMatch(/replayed/);
        }
        expect(() => receiver.srtcp.decrypt(secondReport)).not.toThrow();
      });
    }
  });
}

describe.skipIf(!addonExpected)('who opens a session', () => {
  it('is decided once: the addon and the werift replay guard never both wrap one session', () => {
    const first = endpoints(1, 14).native as unknown as SrtpTransportInternals;
    expect(openWithNativeAddon(first)).toBe(true);
    expect(refuseReplaysInWerift(first)).toBe(false);
    expect(openWithNativeAddon(first)).toBe(true);
    const second = endpoints(1, 14).native as unknown as SrtpTransportInternals;
    expect(refuseReplaysInWerift(second)).toBe(true);
    expect(openWithNativeAddon(second)).toBe(false);
    expect(refuseReplaysInWerift(second)).toBe(true);
  });
});
