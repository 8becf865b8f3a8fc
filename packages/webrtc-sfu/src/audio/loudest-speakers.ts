/** What {@link chooseMixedSpeakers} reads of a participant, and the one flag it sets. */
export interface MixCandidate {
  /** Whether it has a frame in this tick (it sends, or sent within the mixer's active window). */
  active: boolean;
  /** Whether its frame goes into the mix; kept from tick to tick, set here. */
  mixed: boolean;
  /** Whether its talking detector says it talks. */
  talking: boolean;
  /** Its average level over the detector's window, in dBov. */
  levelDbov: number;
}

/**
 * How much louder, in dB, a talking participant left out of the mix must be than the quietest
 * mixed one to take its place. Levels of people talking at once differ by a few dB from word to
 * word; without a margin, two of them would swap in and out of the mix every few frames.
 */
export const replaceMarginDb = 6;

function beats(challenger: MixCandidate, holder: MixCandidate): boolean {
  if (!challenger.talking) return false;
  if (!holder.talking) return true;
  return challenger.levelDbov > holder.levelDbov + replaceMarginDb;
}

/**
 * Chooses whose frames go into this tick's mix: every active participant while at most `limit`
 * are active, else at most `limit` of them. Those mixed before stay while they are active, unless
 * a talking participant left out is louder by {@link replaceMarginDb} (or the mixed one stopped
 * talking); free places go to the loudest talking participants first. At most one participant is
 * replaced per tick, so a crowd that starts talking together settles over a few ticks of 20 ms.
 * It scans the participants a few times and sorts nothing.
 */
export function chooseMixedSpeakers(participants: ReadonlyMap<string, MixCandidate>, limit: number): void {
  let active = 0;
  let mixed = 0;
  for (const candidate of participants.values()) {
    if (!candidate.active) candidate.mixed = false;
    else active += 1;
    if (candidate.mixed) mixed += 1;
  }
  if (active <= limit) {
    for (const candidate of participants.values()) if (candidate.active) candidate.mixed = true;
    return;
  }
  while (mixed < limit) {
    const best = bestLeftOut(participants.values());
    if (best === undefined) break;
    best.mixed = true;
    mixed += 1;
  }
  const best = bestLeftOut(participants.values());
  const worst = quietestMixed(participants.values());
  if (best !== undefined && worst !== undefined && beats(best, worst)) {
    worst.mixed = false;
    best.mixed = true;
  }
}

/** The active participant left out that ranks highest: talking first, then by level. */
function bestLeftOut(candidates: Iterable<MixCandidate>): MixCandidate | undefined {
  let best: MixCandidate | undefined;
  for (const candidate of candidates) {
    if (!candidate.active || candidate.mixed) continue;
    if (best === undefined || ranksAbove(candidate, best)) best = candidate;
  }
  return best;
}

/** The mixed participant that ranks lowest. */
function quietestMixed(candidates: Iterable<MixCandidate>): MixCandidate | undefined {
  let worst: MixCandidate | undefined;
  for (const candidate of candidates) {
    if (!candidate.mixed) continue;
    if (worst === undefined || ranksAbove(worst, candidate)) worst = candidate;
  }
  return worst;
}

function ranksAbove(first: MixCandidate, second: MixCandidate): boolean {
  if (first.talking !== second.talking) return first.talking;
  return first.levelDbov > second.levelDbov;
}
