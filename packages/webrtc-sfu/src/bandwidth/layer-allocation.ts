/** One subscribed stream as the allocator sees it. */
export interface AllocationStream {
  /** Lower is served first: screen share 0, camera 1. */
  priority: number;
  /** Bit/s of each available layer, lowest first. */
  layerBitrates: readonly number[];
  /** Highest layer index the subscriber wants (its preferred quality). */
  maxLayer: number;
  /** Layer index forwarded now, `undefined` while paused. */
  currentLayer: number | undefined;
  /** Whether it may go above `currentLayer` now (not within the hold after a step down). */
  mayUpgrade: boolean;
}

/**
 * Which layer of each stream fits a subscriber's budget (bit/s; `undefined`: no limit): first the
 * lowest layer of each stream in priority order while they fit (streams that do not fit are paused),
 * then upgrades: a higher priority (screen share) climbs as far as it can before a lower one
 * (camera) climbs, and streams of one priority climb one step at a time in turn. Climbing above the current layer needs the
 * step's cost times `headroom` to fit, so a budget near a layer's bitrate does not flap. Returns a
 * layer index or `undefined` (paused) per stream, in input order. Pure.
 */
export function allocateLayers(
  streams: readonly AllocationStream[],
  budget: number | undefined,
  headroom: number,
): Array<number | undefined> {
  const chosen: Array<number | undefined> = streams.map(() => undefined);
  if (budget === undefined) {
    return streams.map((stream) => (stream.layerBitrates.length === 0 ? undefined : stream.maxLayer));
  }
  const order = streams
    .map((stream, index) => ({ stream, index }))
    .sort((left, right) => left.stream.priority - right.stream.priority || left.index - right.index);
  let remaining = budget;
  const costOf = (stream: AllocationStream, layer: number, from: number | undefined): number => {
    const cost = stream.layerBitrates[layer] ?? 0;
    const above = stream.currentLayer === undefined || layer > stream.currentLayer;
    return (above ? cost * headroom : cost) - (from === undefined ? 0 : (stream.layerBitrates[from] ?? 0));
  };
  for (const { stream, index } of order) {
    if (stream.layerBitrates.length === 0) continue;
    if (stream.currentLayer === undefined && !stream.mayUpgrade) continue;
    const cost = costOf(stream, 0, undefined);
    if (cost <= remaining) {
      chosen[index] = 0;
      remaining -= stream.layerBitrates[0] ?? 0;
    }
  }
  const priorities = [...new Set(order.map(({ stream }) => stream.priority))];
  for (const priority of priorities) {
    const group = order.filter(({ stream }) => stream.priority === priority);
    let upgraded = true;
    while (upgraded) {
      upgraded = false;
      for (const { stream, index } of group) {
        const layer = chosen[index];
        const top = Math.min(stream.maxLayer, stream.layerBitrates.length - 1);
        if (layer === undefined || layer >= top) continue;
        const next = layer + 1;
        if (!stream.mayUpgrade && (stream.currentLayer === undefined || next > stream.currentLayer)) continue;
        if (costOf(stream, next, layer) > remaining) continue;
        chosen[index] = next;
        remaining -= (stream.layerBitrates[next] ?? 0) - (stream.layerBitrates[layer] ?? 0);
        upgraded = true;
      }
    }
  }
  return chosen;
}
