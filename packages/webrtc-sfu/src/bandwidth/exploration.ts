import type { AllocationStream } from './layer-allocation.js';

/**
 * Which stream may probe one layer above what the estimate gives it, by position, or -1. The
 * estimate grows by a few per cent a second on clean feedback, so a subscriber whose link widens (a
 * shaper lifted, a better network) would take several seconds per layer to climb on growth alone; a
 * probe to the next layer answers in about one. A candidate is chosen at its current layer, below
 * the layer it wants, or paused by the estimate (a probe to its lowest layer resumes it, where
 * growth alone takes seconds with nothing sent), and out of its hold; the first by priority (screen
 * share before camera) wins, one layer at a time. None while `chosen` already climbs somewhere (that
 * climb probes for itself), nor when the subscriber's own REMB, less its audio (`receiverBudget`),
 * could not carry the climb: a passed probe could not raise the estimate above it.
 */
export function streamToExplore(
  streams: readonly AllocationStream[],
  chosen: ReadonlyArray<number | undefined>,
  headroom: number,
  receiverBudget: number | undefined,
): number {
  const climbing = streams.some((stream, position) => {
    const choice = chosen[position];
    return choice !== undefined && (stream.currentLayer === undefined || choice > stream.currentLayer);
  });
  if (climbing) return -1;
  let forwarded = 0;
  streams.forEach((stream, position) => {
    const choice = chosen[position];
    if (choice !== undefined) forwarded += stream.layerBitrates[choice] ?? 0;
  });
  const order = streams
    .map((stream, position) => ({ stream, position }))
    .sort((left, right) => left.stream.priority - right.stream.priority || left.position - right.position);
  for (const { stream, position } of order) {
    const layer = chosen[position];
    if (layer !== stream.currentLayer || !stream.mayUpgrade || stream.layerBitrates.length === 0) continue;
    const next = layer === undefined ? 0 : layer + 1;
    if (layer !== undefined && layer >= Math.min(stream.maxLayer, stream.layerBitrates.length - 1)) continue;
    const kept = layer === undefined ? 0 : (stream.layerBitrates[layer] ?? 0);
    const needed = forwarded - kept + (stream.layerBitrates[next] ?? 0) * headroom;
    if (receiverBudget !== undefined && needed > receiverBudget) continue;
    return position;
  }
  return -1;
}
