/** An ISO BMFF box: 32-bit size, 4-letter type, payload. */
function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.byteLength, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

/** A full box: a box whose payload starts with a version byte and 24 bits of flags. */
function fullBox(type: string, version: number, ...payload: Buffer[]): Buffer {
  return box(type, Buffer.from([version, 0, 0, 0]), ...payload);
}

function u16(value: number): Buffer {
  const bytes = Buffer.alloc(2);
  bytes.writeUInt16BE(value);
  return bytes;
}

function u32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}

/**
 * HEVC decoder configuration (ISO/IEC 14496-15, `hvcC`) of a Main-profile 8-bit 4:2:0 stream with
 * no parameter-set arrays.
 */
function hevcConfiguration(): Buffer {
  return box(
    'hvcC',
    Buffer.from([1, 0x01, 0x60, 0, 0, 0, 0x90, 0, 0, 0, 0, 0, 90]),
    Buffer.from([0xf0, 0x00, 0xfc, 0xfd, 0xf8, 0xf8, 0x00, 0x00, 0x0f, 0x00]),
  );
}

/**
 * A HEIC file (HEIF holding one HEVC-coded `hvc1` image of `width` x `height`) built box by box, since
 * sharp cannot encode HEVC: headers readers parse, then a few bytes that are not a real HEVC stream.
 * sharp's metadata reads it as `heif` with `hevc` compression; nothing here can decode it.
 */
export function heicSample(width: number, height: number): Buffer {
  const imageData = Buffer.alloc(64, 0x5a);
  const build = (dataOffset: number) => {
    const ftyp = box('ftyp', Buffer.from('heic', 'latin1'), u32(0), Buffer.from('mif1heic', 'latin1'));
    const handler = fullBox(
      'hdlr',
      0,
      u32(0),
      Buffer.from('pict', 'latin1'),
      Buffer.alloc(12),
      Buffer.from([0]),
    );
    const primary = fullBox('pitm', 0, u16(1));
    const location = fullBox(
      'iloc',
      0,
      Buffer.from([0x44, 0x00]),
      u16(1),
      u16(1),
      u16(0),
      u16(1),
      u32(dataOffset),
      u32(imageData.byteLength),
    );
    const info = fullBox(
      'iinf',
      0,
      u16(1),
      fullBox('infe', 2, u16(1), u16(0), Buffer.from('hvc1', 'latin1'), Buffer.from([0])),
    );
    const extent = fullBox('ispe', 0, u32(width), u32(height));
    const properties = box(
      'iprp',
      box('ipco', hevcConfiguration(), extent),
      fullBox('ipma', 0, u32(1), u16(1), Buffer.from([2, 0x81, 0x02])),
    );
    const meta = fullBox('meta', 0, handler, primary, location, info, properties);
    return Buffer.concat([ftyp, meta]);
  };
  const head = build(0);
  const withOffset = build(head.byteLength + 8);
  return Buffer.concat([withOffset, box('mdat', imageData)]);
}
