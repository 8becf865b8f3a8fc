import { RTP_EXTENSION_URI } from 'werift';

/** The fields of an outgoing RTP packet that differ from packet to packet. */
export interface OutgoingRtpFields {
  sequenceNumber: number;
  timestamp: number;
  marker: boolean;
}

const oneByteProfile = 0xbede;
const fixedHeaderSize = 12;

export type ExtensionKind = 'mid' | 'transportWideCc' | 'absSendTime';

/** The header extensions this sender writes itself, in ascending id order as werift writes them. */
export interface ExtensionLayout {
  /** The mid this layout was planned for. */
  mid: string | undefined;
  midBytes: Buffer | undefined;
  elements: { id: number; kind: ExtensionKind }[];
  hasTransportWideCc: boolean;
  /** Bytes of the extension block, padding included (0 without extensions). */
  blockSize: number;
}

/**
 * Plans the header extensions a sender writes from the negotiated ones: the mid (when the sender
 * has one), transport-wide sequence numbers and abs-send-time; others are left out, as werift's
 * sender's rid extensions are left out: SFU senders have no rid. `undefined` when they do not fit one-byte headers (RFC 8285). Pure.
 */
export function planExtensions(
  negotiated: { uri: string; id: number }[],
  mid: string | undefined,
): ExtensionLayout | undefined {
  const layout: ExtensionLayout = {
    mid,
    midBytes: undefined,
    elements: [],
    hasTransportWideCc: false,
    blockSize: 0,
  };
  let elementBytes = 0;
  for (const { uri, id } of negotiated) {
    let kind: ExtensionKind;
    if (uri === RTP_EXTENSION_URI.sdesMid && mid) {
      kind = 'mid';
      layout.midBytes = Buffer.from(mid);
      if (layout.midBytes.length > 16) return undefined;
      elementBytes += 1 + layout.midBytes.length;
    } else if (uri === RTP_EXTENSION_URI.transportWideCC) {
      kind = 'transportWideCc';
      layout.hasTransportWideCc = true;
      elementBytes += 3;
    } else if (uri === RTP_EXTENSION_URI.absSendTime) {
      kind = 'absSendTime';
      elementBytes += 4;
    } else {
      continue;
    }
    if (id < 1 || id > 14) return undefined;
    layout.elements.push({ id, kind });
  }
  layout.elements.sort((left, right) => left.id - right.id);
  layout.blockSize = elementBytes === 0 ? 0 : 4 + Math.ceil(elementBytes / 4) * 4;
  return layout;
}

/** Bytes of the RTP header {@link writeRtpHeader} writes for `layout`. */
export function rtpHeaderLength(layout: ExtensionLayout): number {
  return fixedHeaderSize + layout.blockSize;
}

/**
 * The RTP header (RFC 3550) with one-byte header extensions (RFC 8285), in a new buffer; `padded`
 * sets the P bit (what follows the header ends with padding, its last byte the padding count). Pure.
 */
export function writeRtpHeader(
  fields: OutgoingRtpFields,
  payloadType: number,
  ssrc: number,
  layout: ExtensionLayout,
  transportSequenceNumber: number | undefined,
  nowMs: number,
  padded = false,
): Buffer {
  const header = Buffer.allocUnsafe(rtpHeaderLength(layout));
  writeRtpHeaderInto(header, fields, payloadType, ssrc, layout, transportSequenceNumber, nowMs, padded);
  return header;
}

/**
 * Writes the header {@link writeRtpHeader} makes at the start of `header` (at least
 * {@link rtpHeaderLength} bytes) and returns its length.
 */
export function writeRtpHeaderInto(
  header: Buffer,
  fields: OutgoingRtpFields,
  payloadType: number,
  ssrc: number,
  layout: ExtensionLayout,
  transportSequenceNumber: number | undefined,
  nowMs: number,
  padded = false,
): number {
  const headerLength = rtpHeaderLength(layout);
  header[0] = (layout.blockSize === 0 ? 0x80 : 0x90) | (padded ? 0x20 : 0);
  header[1] = (fields.marker ? 0x80 : 0) | (payloadType & 0x7f);
  header.writeUInt16BE(fields.sequenceNumber, 2);
  header.writeUInt32BE(fields.timestamp >>> 0, 4);
  header.writeUInt32BE(ssrc >>> 0, 8);
  if (layout.blockSize === 0) return headerLength;
  header.writeUInt16BE(oneByteProfile, 12);
  header.writeUInt16BE((layout.blockSize - 4) / 4, 14);
  let offset = 16;
  for (const { id, kind } of layout.elements) {
    if (kind === 'mid' && layout.midBytes !== undefined) {
      header[offset++] = (id << 4) | (layout.midBytes.length - 1);
      offset += layout.midBytes.copy(header, offset);
    } else if (kind === 'transportWideCc' && transportSequenceNumber !== undefined) {
      header[offset++] = (id << 4) | 1;
      header.writeUInt16BE(transportSequenceNumber, offset);
      offset += 2;
    } else if (kind === 'absSendTime') {
      header[offset++] = (id << 4) | 2;
      // 6.18 fixed-point seconds; only differences matter to the receiver.
      header.writeUIntBE(Math.floor((nowMs / 1000) * 262_144) & 0xffffff, offset, 3);
      offset += 3;
    }
  }
  header.fill(0, offset, headerLength);
  return headerLength;
}
