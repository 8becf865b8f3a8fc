import type { EventDelivery } from '../events.js';

/** A live subscription of {@link EventBus.subscribe}. */
export interface EventSubscription {
  /** Stops delivery to this listener; idempotent. */
  unsubscribe(): Promise<void>;
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
  /** Releases connections; idempotent. */
  close(): Promise<void>;
}
