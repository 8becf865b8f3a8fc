/** Where the picture id and TL0PICIDX sit in a VP8 payload descriptor (RFC 7741), if present. */
export interface Vp8DescriptorFields {
  /** Byte offset of the picture id, or -1 without one. */
  pictureIdOffset: number;
  /** 7 or 15 bits. */
  pictureIdBits: 7 | 15;
  pictureId: number;
  /** Byte offset of TL0PICIDX, or -1 without one. */
  tl0PicIdxOffset: number;
  tl0PicIdx: number;
}

/** Reads the picture id and TL0PICIDX positions of a VP8 payload descriptor. Pure. */
export function readVp8Descriptor(payload: Uint8Array): Vp8DescriptorFields | undefined {
  const first = payload[0];
  if (first === undefined || (first & 0x80) === 0) return undefined;
  const extension = payload[1];
  if (extension === undefined) return undefined;
  let offset = 2;
  const fields: Vp8DescriptorFields = {
    pictureIdOffset: -1,
    pictureIdBits: 7,
    pictureId: 0,
    tl0PicIdxOffset: -1,
    tl0PicIdx: 0,
  };
  if ((extension & 0x80) !== 0) {
    const high = payload[offset];
    if (high === undefined) return undefined;
    fields.pictureIdOffset = offset;
    if ((high & 0x80) !== 0) {
      const low = payload[offset + 1];
      if (low === undefined) return undefined;
      fields.pictureIdBits = 15;
      fields.pictureId = ((high & 0x7f) << 8) | low;
      offset += 2;
    } else {
      fields.pictureId = high;
      offset += 1;
    }
  }
  if ((extension & 0x40) !== 0) {
    const tl0 = payload[offset];
    if (tl0 === undefined) return undefined;
    fields.tl0PicIdxOffset = offset;
    fields.tl0PicIdx = tl0;
  }
  return fields;
}

/**
 * Keeps the VP8 picture id and TL0PICIDX of one outgoing stream continuous when its input switches
 * between simulcast layers, each of which numbers its pictures on its own. After
 * {@link Vp8PictureRewriter.resync} the next picture continues right after the last one sent. While
 * the offsets are zero (one layer, never switched) payloads pass through untouched; otherwise the
 * payload is copied, since other consumers share the original.
 */
export class Vp8PictureRewriter {
  #pictureIdOffset = 0;
  #tl0Offset = 0;
  #lastPictureId: number | undefined;
  #lastTl0: number | undefined;
  #needsSync = true;

  /** The next payload starts a new run (a layer switch or a new source). */
  resync(): void {
    this.#needsSync = true;
  }

  /**
   * The payload to send: the input itself, or a copy with rewritten fields. `fields` are the
   * payload's, when the caller read them already (once per packet for all its subscribers).
   */
  rewrite(payload: Buffer, fields = readVp8Descriptor(payload)): Buffer {
    if (fields === undefined) return payload;
    const pictureModulo = fields.pictureIdBits === 15 ? 0x8000 : 0x80;
    if (this.#needsSync) {
      this.#needsSync = false;
      this.#pictureIdOffset =
        this.#lastPictureId === undefined || fields.pictureIdOffset < 0
          ? 0
          : (this.#lastPictureId + 1 - fields.pictureId + 2 * 0x8000) % 0x8000;
      this.#tl0Offset =
        this.#lastTl0 === undefined || fields.tl0PicIdxOffset < 0
          ? 0
          : (this.#lastTl0 + 1 - fields.tl0PicIdx + 512) % 256;
    }
    const pictureId = (fields.pictureId + this.#pictureIdOffset) % pictureModulo;
    const tl0 = (fields.tl0PicIdx + this.#tl0Offset) % 256;
    if (fields.pictureIdOffset >= 0) this.#lastPictureId = pictureId;
    if (fields.tl0PicIdxOffset >= 0) this.#lastTl0 = tl0;
    if (
      (fields.pictureIdOffset < 0 || pictureId === fields.pictureId) &&
      (fields.tl0PicIdxOffset < 0 || tl0 === fields.tl0PicIdx)
    ) {
      return payload;
    }
    const copy = Buffer.from(payload);
    if (fields.pictureIdOffset >= 0) {
      if (fields.pictureIdBits === 15) {
        copy[fields.pictureIdOffset] = 0x80 | (pictureId >> 8);
        copy[fields.pictureIdOffset + 1] = pictureId & 0xff;
      } else {
        copy[fields.pictureIdOffset] = pictureId;
      }
    }
    if (fields.tl0PicIdxOffset >= 0) copy[fields.tl0PicIdxOffset] = tl0;
    return copy;
  }
}
