/**
 * Whether an RTP payload with a VP8 payload descriptor (RFC 7741) starts a keyframe: the start bit
 * is set with partition index 0 and the VP8 payload header's inverse key frame flag is 0. Pure.
 */
export function isVp8KeyframeStart(payload: Uint8Array): boolean {
  const offset = vp8PayloadHeaderOffset(payload);
  if (offset === undefined) return false;
  const header = payload[offset];
  return header !== undefined && (header & 0x01) === 0;
}

/**
 * The frame size a VP8 keyframe states in its first packet (RFC 6386 section 9.1: after the 3-byte
 * frame tag, the start code 9d 01 2a, then 14-bit width and height), or `undefined` for any other
 * packet. Simulcast layers differ by size, which does not change when a layer's bitrate does. Pure.
 */
export function readVp8KeyframeSize(payload: Uint8Array): { width: number; height: number } | undefined {
  const offset = vp8PayloadHeaderOffset(payload);
  if (offset === undefined || payload.length < offset + 10) return undefined;
  const keyframe = ((payload[offset] ?? 1) & 0x01) === 0;
  const startCode =
    payload[offset + 3] === 0x9d && payload[offset + 4] === 0x01 && payload[offset + 5] === 0x2a;
  if (!keyframe || !startCode) return undefined;
  const sizeAt = (index: number) => ((payload[index] ?? 0) | ((payload[index + 1] ?? 0) << 8)) & 0x3fff;
  return { width: sizeAt(offset + 6), height: sizeAt(offset + 8) };
}

/** Where the VP8 payload header starts in the first packet of a partition 0, or `undefined`. */
function vp8PayloadHeaderOffset(payload: Uint8Array): number | undefined {
  const first = payload[0];
  if (first === undefined) return undefined;
  const startOfPartition = (first & 0x10) !== 0;
  const partitionIndex = first & 0x07;
  if (!startOfPartition || partitionIndex !== 0) return undefined;
  let offset = 1;
  if ((first & 0x80) !== 0) {
    const extension = payload[offset];
    if (extension === undefined) return undefined;
    offset += 1;
    if ((extension & 0x80) !== 0) {
      const pictureId = payload[offset];
      if (pictureId === undefined) return undefined;
      offset += (pictureId & 0x80) !== 0 ? 2 : 1;
    }
    if ((extension & 0x40) !== 0) offset += 1;
    if ((extension & 0x30) !== 0) offset += 1;
  }
  return offset;
}
