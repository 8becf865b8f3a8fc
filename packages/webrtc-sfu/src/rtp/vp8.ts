/**
 * Whether an RTP payload with a VP8 payload descriptor (RFC 7741) starts a keyframe: the start bit
 * is set with partition index 0 and the VP8 payload header's inverse key frame flag is 0. Pure.
 */
export function isVp8KeyframeStart(payload: Uint8Array): boolean {
  const first = payload[0];
  if (first === undefined) return false;
  const startOfPartition = (first & 0x10) !== 0;
  const partitionIndex = first & 0x07;
  if (!startOfPartition || partitionIndex !== 0) return false;
  let offset = 1;
  if ((first & 0x80) !== 0) {
    const extension = payload[offset];
    if (extension === undefined) return false;
    offset += 1;
    if ((extension & 0x80) !== 0) {
      const pictureId = payload[offset];
      if (pictureId === undefined) return false;
      offset += (pictureId & 0x80) !== 0 ? 2 : 1;
    }
    if ((extension & 0x40) !== 0) offset += 1;
    if ((extension & 0x30) !== 0) offset += 1;
  }
  const header = payload[offset];
  return header !== undefined && (header & 0x01) === 0;
}
