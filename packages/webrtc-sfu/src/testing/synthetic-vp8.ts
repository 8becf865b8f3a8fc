/** What {@link syntheticVp8Frame} puts in a frame. */
export interface SyntheticFrameOptions {
  keyframe: boolean;
  /** Frame number, written into every packet. */
  frameNumber: number;
  /** Total payload bytes of the frame. */
  frameBytes: number;
  /** Largest payload of one packet. */
  maxPacketBytes: number;
  /** Sender's clock (ms since the epoch, fractional), written into every packet for latency. */
  sentAtMs: number;
  /** A 15-bit picture id (and with it the extended descriptor), as simulcast senders write. */
  pictureId?: number;
  /** TL0PICIDX, written with the picture id. */
  tl0PicIdx?: number;
  /** Frame size a keyframe states. @default 320x240 */
  width?: number;
  height?: number;
}

/** Bytes of the marker each synthetic packet carries after its VP8 headers. */
const metadataBytes = 12;

/**
 * RTP payloads of one synthetic VP8 frame: RFC 7741 payload descriptors with the start bit on the
 * first packet, a VP8 payload header (key frame flag and, for keyframes, the start code and the
 * size, 320x240 unless given), then frame number and send time. Not decodable video, but what an SFU sees. Pure.
 */
export function syntheticVp8Frame(options: SyntheticFrameOptions): Buffer[] {
  const payloads: Buffer[] = [];
  let remaining = Math.max(options.frameBytes, 32);
  while (remaining > 0) {
    const first = payloads.length === 0;
    const size = Math.min(options.maxPacketBytes, remaining);
    const extended = options.pictureId !== undefined;
    const descriptorBytes = extended ? 5 : 1;
    const payload = Buffer.alloc(Math.max(size, descriptorBytes + 10 + metadataBytes));
    payload[0] = (first ? 0x10 : 0x00) | (extended ? 0x80 : 0x00);
    let offset = 1;
    if (extended) {
      const pictureId = (options.pictureId ?? 0) & 0x7fff;
      payload[1] = 0xc0;
      payload[2] = 0x80 | (pictureId >> 8);
      payload[3] = pictureId & 0xff;
      payload[4] = (options.tl0PicIdx ?? 0) & 0xff;
      offset = 5;
    }
    if (first) {
      payload[offset] = options.keyframe ? 0x00 : 0x01;
      offset += 3;
      if (options.keyframe) {
        payload.set([0x9d, 0x01, 0x2a], offset);
        payload.writeUInt16LE((options.width ?? 320) & 0x3fff, offset + 3);
        payload.writeUInt16LE((options.height ?? 240) & 0x3fff, offset + 5);
        offset += 7;
      }
    }
    payload.writeUInt32BE(options.frameNumber >>> 0, offset);
    payload.writeDoubleBE(options.sentAtMs, offset + 4);
    payloads.push(payload);
    remaining -= payload.length;
  }
  return payloads;
}

/** Frame number and send time of a synthetic packet, or `undefined` for other payloads. Pure. */
export function readSyntheticVp8(payload: Buffer): { frameNumber: number; sentAtMs: number } | undefined {
  const first = ((payload[0] ?? 0) & 0x10) !== 0;
  const descriptor = ((payload[0] ?? 0) & 0x80) !== 0 ? 5 : 1;
  const offset = descriptor + (first ? (((payload[descriptor] ?? 1) & 0x01) === 0 ? 10 : 3) : 0);
  if (payload.length < offset + metadataBytes) return undefined;
  return { frameNumber: payload.readUInt32BE(offset), sentAtMs: payload.readDoubleBE(offset + 4) };
}
