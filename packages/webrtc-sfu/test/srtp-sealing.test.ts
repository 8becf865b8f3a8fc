import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RtpHeader, SrtpSession } from 'werift';
import { nativeSrtpAvailable, type SrtpSessionKeys, sealerFor } from '../src/rtp/srtp-sealing.js';

// The native addon must protect packets exactly as werift's cipher does: werift clients and
// browsers decrypt what the SFU sends with the keys DTLS gave both sides.

const profiles = [
  { name: 'AES_CM_128_HMAC_SHA1_80', profile: 1, saltBytes: 14 },
  { name: 'AEAD_AES_128_GCM', profile: 7, saltBytes: 12 },
] as const;

function sessions(profile: number, saltBytes: number) {
  const keys = {
    localMasterKey: randomBytes(16),
    localMasterSalt: randomBytes(saltBytes),
    remoteMasterKey: randomBytes(16),
    remoteMasterSalt: randomBytes(saltBytes),
  };
  const sender = new SrtpSession({ keys, profile } as ConstructorParameters<typeof SrtpSession>[0]);
  const receiver = new SrtpSession({
    keys: {
      localMasterKey: keys.remoteMasterKey,
      localMasterSalt: keys.remoteMasterSalt,
      remoteMasterKey: keys.localMasterKey,
      remoteMasterSalt: keys.localMasterSalt,
    },
    profile,
  } as ConstructorParameters<typeof SrtpSession>[0]);
  return { sender, receiver };
}

interface CipherView {
  encryptRtp(
    header: { ssrc: number; sequenceNumber: number; serializeSize: number; serialize(size: number): Buffer },
    payload: Buffer,
    rolloverCounter: number,
  ): Buffer;
}

// Without a C compiler the workspace installs without the addon (werift's SRTP is used); CI has one
// and must not skip these silently.
const addonExpected = nativeSrtpAvailable() || process.env.CI === 'true';

describe.skipIf(!addonExpected)('native SRTP sealing', () => {
  it('is built and loaded in this workspace', () => {
    expect(nativeSrtpAvailable()).toBe(true);
  });

  for (const { name, profile, saltBytes } of profiles) {
    it(`${name}: protects packets byte for byte as werift does, and werift decrypts them`, () => {
      const { sender, receiver } = sessions(profile, saltBytes);
      const context = sender.localContext as unknown as SrtpSessionKeys & { cipher: CipherView };
      const sealer = sealerFor(context);
      if (sealer === null) throw new Error('no native sealer');
      expect(sealerFor(context)).toBe(sealer);
      const cases = [
        { sequenceNumber: 0, rolloverCounter: 0, payloadBytes: 1, extensions: false },
        { sequenceNumber: 65_535, rolloverCounter: 3, payloadBytes: 1_200, extensions: true },
        { sequenceNumber: 4_242, rolloverCounter: 0x7fff_ffff, payloadBytes: 161, extensions: true },
      ];
      for (const { sequenceNumber, rolloverCounter, payloadBytes, extensions } of cases) {
        const header = new RtpHeader({
          payloadType: 96,
          sequenceNumber,
          timestamp: 0xdead_beef,
          ssrc: 0x1234_5678,
          marker: true,
          extension: extensions,
          extensions: extensions ? [{ id: 3, payload: Buffer.from([0x01, 0x02]) }] : [],
        });
        const headerBytes = header.serialize(header.serializeSize);
        const payload = randomBytes(payloadBytes);
        const expected = context.cipher.encryptRtp(
          {
            ssrc: header.ssrc,
            sequenceNumber,
            serializeSize: headerBytes.length,
            serialize: () => headerBytes,
          },
          payload,
          rolloverCounter,
        );
        const packet = Buffer.alloc(headerBytes.length + payloadBytes + sealer.tagLength);
        headerBytes.copy(packet);
        expect(sealer.seal(packet, headerBytes.length, payload, rolloverCounter)).toBe(packet.length);
        expect(packet.equals(expected)).toBe(true);
        if (rolloverCounter === 0) {
          // werift's receiver tracks the rollover counter itself, from 0.
          const decrypted = receiver.decrypt(packet);
          expect(decrypted.subarray(headerBytes.length).equals(payload)).toBe(true);
        }
      }
    });
  }

  it('refuses a buffer without room for the tag', () => {
    const { sender } = sessions(7, 12);
    const sealer = sealerFor(sender.localContext as unknown as SrtpSessionKeys);
    if (sealer === null) throw new Error('no native sealer');
    const packet = Buffer.alloc(12 + 100 + 15);
    packet[0] = 0x80;
    expect(() => sealer.seal(packet, 12, Buffer.alloc(100), 0)).toThrow(/too short/);
    expect(() => sealer.seal(packet, 12, 100 as unknown as Buffer, 0)).toThrow(/payload Buffer/);
  });

  it('leaves a profile the addon does not know to werift', () => {
    const { sender } = sessions(7, 12);
    const keys = sender.localContext as unknown as SrtpSessionKeys;
    expect(sealerFor({ ...keys, profile: 2 })).toBeNull();
  });

  it('leaves a context whose keys the addon refuses to werift instead of throwing on the send path', () => {
    const { sender } = sessions(7, 12);
    const keys = sender.localContext as unknown as SrtpSessionKeys;
    expect(sealerFor({ ...keys, srtpSessionKey: Buffer.alloc(32) })).toBeNull();
  });
});
