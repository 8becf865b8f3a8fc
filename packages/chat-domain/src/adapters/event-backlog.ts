import type { EventDelivery } from '../events.js';

/** Bounds of an {@link EventBacklog}. */
export interface EventBacklogLimits {
  /** Most deliveries kept; past it the oldest are dropped. */
  maxEvents: number;
  /** Oldest a kept delivery may be; older ones are dropped. */
  maxAgeMs: number;
}

/** Whose listeners must be told to resync: some users, or everyone when too many to list. */
export interface LostUsers {
  userIds: string[];
  everyone: boolean;
}

interface Entry {
  delivery: EventDelivery;
  acceptedAt: number;
}

/** Deliveries taken out of an {@link EventBacklog}, in order. */
export interface TakenDeliveries {
  readonly deliveries: readonly EventDelivery[];
}

interface TakenWithEntries extends TakenDeliveries {
  readonly entries: readonly Entry[];
}

/**
 * Deliveries accepted but not yet handed to the backend, in order, bounded in count and age. A
 * dropped delivery is never silent: its user is remembered (up to `maxEvents` users, then
 * "everyone") until {@link EventBacklog.takeLostUsers} hands them over for a resync signal.
 */
export class EventBacklog {
  private entries: Entry[] = [];
  private head = 0;
  private readonly lost = new Set<string>();
  private lostEveryone = false;

  constructor(
    private readonly limits: EventBacklogLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Deliveries kept. */
  get size(): number {
    return this.entries.length - this.head;
  }

  /** Whether some dropped deliveries still wait for their resync signal. */
  get hasLostUsers(): boolean {
    return this.lostEveryone || this.lost.size > 0;
  }

  /** Keeps `deliveries` after the others, dropping the oldest past `maxEvents`. */
  push(deliveries: readonly EventDelivery[]): void {
    const acceptedAt = this.now();
    for (const delivery of deliveries) this.entries.push({ delivery, acceptedAt });
    const excess = this.size - this.limits.maxEvents;
    if (excess > 0) this.drop(excess);
  }

  /** Drops the deliveries older than `maxAgeMs`. */
  expire(): void {
    const oldest = this.now() - this.limits.maxAgeMs;
    let count = 0;
    while (
      this.head + count < this.entries.length &&
      (this.entries[this.head + count]?.acceptedAt ?? 0) < oldest
    )
      count += 1;
    if (count > 0) this.drop(count);
  }

  /** Takes out the oldest `count` deliveries, to hand them over; give back what failed with {@link putBack}. */
  take(count: number): TakenWithEntries {
    const entries = this.entries.slice(this.head, this.head + count);
    this.head += entries.length;
    this.compact();
    return { deliveries: entries.map((entry) => entry.delivery), entries };
  }

  /**
   * Puts back, before the others, the taken deliveries from index `from` on (they were not handed
   * over); the bounds apply to them again.
   */
  putBack(taken: TakenDeliveries, from: number): void {
    const returned = (taken as TakenWithEntries).entries.slice(from);
    if (returned.length === 0) return;
    this.entries = [...returned, ...this.entries.slice(this.head)];
    this.head = 0;
    const excess = this.size - this.limits.maxEvents;
    if (excess > 0) this.drop(excess);
  }

  /** Remembers `userId` as one whose deliveries were lost. */
  markLost(userId: string): void {
    if (this.lostEveryone) return;
    this.lost.add(userId);
    if (this.lost.size > this.limits.maxEvents) {
      this.lost.clear();
      this.lostEveryone = true;
    }
  }

  /** Hands over the users to signal and forgets them; give them back with {@link restoreLostUsers} if that fails. */
  takeLostUsers(): LostUsers {
    const taken = { userIds: [...this.lost], everyone: this.lostEveryone };
    this.lost.clear();
    this.lostEveryone = false;
    return taken;
  }

  /** Puts back users whose resync signal could not be sent. */
  restoreLostUsers(users: LostUsers): void {
    if (users.everyone) this.lostEveryone = true;
    for (const userId of users.userIds) this.markLost(userId);
  }

  private drop(count: number): void {
    for (const entry of this.entries.slice(this.head, this.head + count))
      this.markLost(entry.delivery.userId);
    this.head += count;
    this.compact();
  }

  private compact(): void {
    if (this.head === this.entries.length) {
      this.entries = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }
}
