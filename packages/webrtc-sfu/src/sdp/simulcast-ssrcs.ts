/**
 * Removes the `a=ssrc` and `a=ssrc-group` lines of every media section that announces simulcast
 * (`a=simulcast`), leaving the others as they are. Pure.
 *
 * Firefox lists the SSRCs of its simulcast encodings (Chromium lists none). werift then takes the
 * first listed SSRC for a stream of its own without a rid, beside the layers it knows by rid: while
 * packets carry the RID header extension they still reach their layer, but a sender stops writing
 * it once a receiver report names its SSRC (about a second in), and from then on the packets of
 * that layer (Firefox's first encoding) went to the stream without a rid, which nothing reads. Without the
 * lines werift learns each layer's SSRC from its first packets with a RID, as with Chromium.
 */
export function withoutSimulcastSsrcs(sdp: string): string {
  const lines = sdp.split(/(?<=\n)/);
  const sections: string[][] = [[]];
  for (const line of lines) {
    if (line.startsWith('m=')) sections.push([]);
    sections.at(-1)?.push(line);
  }
  return sections
    .map((section, index) => {
      const simulcast = index > 0 && section.some((line) => line.startsWith('a=simulcast:'));
      if (!simulcast) return section.join('');
      return section.filter((line) => !/^a=ssrc(-group)?:/.test(line)).join('');
    })
    .join('');
}
