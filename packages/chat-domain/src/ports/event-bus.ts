import type { EventDelivery } from '../events.js';

/** A live subscription of {@link EventBus.subscribe}. */
export interface EventSubscription {
  /** Stops delivery to this listener; idempotent. */
  unsubscribe(): Promise<void>;
}

/** What {@link EventBus.checkHealth} found. */
export interface EventBusHealth {
  /** Whether events published now reach the listeners of every instance. */
  ready: boolean;
  /** Why not, when not ready: e.g. `the publishing connection to Redis is reconnecting`. No secrets. */
  reason?: string;
}

/** Receives deliveries for one user. */
export type EventListener = (delivery: EventDelivery) => void;

/**
 * Why a listener may have missed events: `events_dropped` when events for its user were dropped
 * (past the bus's backlog bound, in count or age, while the backend was away);
 * `subscription_interrupted` when the listener's connection to the backend was down or not yet
 * established, during which events published elsewhere passed it by.
 */
export type ResyncReason = 'events_dropped' | 'subscription_interrupted';

/** Tells a listener to refetch what it shows, since events may have been missed. */
export interface ResyncSignal {
  reason: ResyncReason;
}

/** Receives {@link ResyncSignal}s for one user. */
export type ResyncListener = (signal: ResyncSignal) => void;

/**
 * Carries events to users wherever their sessions are connected: in this process or, with a
 * shared backend, on any server instance.
 */
export interface EventBus {
  /**
   * Sends each delivery to every listener of its user, in order. Never waits for a networked
   * backend: it resolves once the deliveries are accepted, and a bus whose backend is away keeps
   * them (within a documented bound) until it returns. Events past the bound are dropped and their
   * users' listeners get a {@link ResyncSignal} once the backend is back; nothing is lost silently.
   */
  publish(deliveries: readonly EventDelivery[]): Promise<void>;
  /**
   * Listens to one user's deliveries; resolves once deliveries published afterwards will arrive.
   * While a networked backend is away it resolves without waiting: the subscription is made once
   * the backend returns and `onResync` is then called, as it is after every interruption.
   */
  subscribe(userId: string, listener: EventListener, onResync?: ResyncListener): Promise<EventSubscription>;
  /**
   * Asks the backend whether it answers now: an in-process bus always does, a networked one asks
   * its server with a short timeout. Never rejects.
   */
  checkHealth(): Promise<EventBusHealth>;
  /** Releases connections; idempotent. */
  close(): Promise<void>;
}
