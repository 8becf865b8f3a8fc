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
 * Carries events to users wherever their sessions are connected: in this process or, with a
 * shared backend, on any server instance.
 */
export interface EventBus {
  /**
   * Sends each delivery to every listener of its user.
   * @throws ChatError `dependency_failed` when the backend refuses
   */
  publish(deliveries: readonly EventDelivery[]): Promise<void>;
  /** Listens to one user's deliveries; resolves once deliveries published afterwards will arrive. */
  subscribe(userId: string, listener: EventListener): Promise<EventSubscription>;
  /**
   * Asks the backend whether it answers now: an in-process bus always does, a networked one asks
   * its server with a short timeout. Never rejects.
   */
  checkHealth(): Promise<EventBusHealth>;
  /** Releases connections; idempotent. */
  close(): Promise<void>;
}
