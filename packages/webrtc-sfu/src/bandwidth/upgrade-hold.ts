/** A step down this soon after a climb means the climb did not fit: the link is no wider than before. */
const failedClimbWithinMs = 5_000;
/** The hold never grows beyond this many times `upgradeHoldMs`. */
const maxHoldFactor = 4;

/**
 * When one stream of a subscriber may climb to a higher layer again. After a step down it waits
 * `upgradeHoldMs`; when the step down undoes a climb of the last 5 s (the estimate grew while the
 * link stayed narrow, and the higher layer congested it), the wait doubles, up to 4 times
 * `upgradeHoldMs` (12 s by default), so a subscriber behind a narrow link tries a layer that does
 * not fit less often than every few seconds, yet finds a link that widened within 12 s. A failed
 * bandwidth probe before a climb counts the same. A step down long after the last climb starts
 * again from `upgradeHoldMs`. Pure: callers pass the time.
 */
export class UpgradeHold {
  readonly #baseMs: number;
  #holdMs: number;
  #lastClimbMs = Number.NEGATIVE_INFINITY;
  #lastStepDownMs = Number.NEGATIVE_INFINITY;

  constructor(upgradeHoldMs: number) {
    this.#baseMs = upgradeHoldMs;
    this.#holdMs = upgradeHoldMs;
  }

  /** The wait after the last step down, ms. */
  get holdMs(): number {
    return this.#holdMs;
  }

  /** Whether the stream may climb above its current layer (or resume) now. */
  mayClimb(nowMs: number): boolean {
    return nowMs - this.#lastStepDownMs >= this.#holdMs;
  }

  /** Notes a climb to a higher layer, or a resume from pause. */
  climbed(nowMs: number): void {
    this.#lastClimbMs = nowMs;
  }

  /**
   * Notes a failed bandwidth probe before a climb: like a climb undone at once, it doubles the
   * hold (up to 4 times `upgradeHoldMs`) and starts it now.
   */
  probeFailed(nowMs: number): void {
    this.#lastClimbMs = nowMs;
    this.steppedDown(nowMs);
  }

  /** Notes a step down to a lower layer, or a pause. */
  steppedDown(nowMs: number): void {
    const failedClimb = nowMs - this.#lastClimbMs < failedClimbWithinMs;
    this.#holdMs = failedClimb ? Math.min(this.#holdMs * 2, this.#baseMs * maxHoldFactor) : this.#baseMs;
    this.#lastStepDownMs = nowMs;
  }
}
