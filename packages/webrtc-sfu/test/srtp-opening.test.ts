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
import { openWithNativeAddon, type SrtpTransportInternals } from '../src/rtp/srtp-opening.js';
import { nativeSrtpAvailable } from '../src/rtp/srtp-sealing.js';

// What the native addon unprotects must be exactly what werift's own decryption gives, for every
// packet werift's sender protects; a packet that is not authentic must be refused as werift refuses
// it, without moving the rollover counter.

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
