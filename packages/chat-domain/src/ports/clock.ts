/** Where the domain gets the current time. */
export interface Clock {
  now(): Date;
}

/** The machine's clock, with millisecond precision. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that moves only when told to, for tests. */
export interface ManualClock extends Clock {
  /** Moves the clock forward by `milliseconds`. */
  advance(milliseconds: number): void;
  set(date: Date): void;
}

/** Creates a {@link ManualClock} starting at `start`. @default start 2024-01-01T00:00:00.000Z */
export function createManualClock(start: Date = new Date('2024-01-01T00:00:00.000Z')): ManualClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (milliseconds) => {
      current += milliseconds;
    },
    set: (date) => {
      current = date.getTime();
    },
  };
}
