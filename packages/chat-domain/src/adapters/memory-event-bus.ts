import type { EventDelivery } from '../events.js';
import type { EventBus, EventListener, EventSubscription } from '../ports/event-bus.js';

/**
 * Delivers a batch to the listeners of each user; a throwing listener does not stop the others.
 * Shared by the in-process bus and by adapters that receive deliveries from elsewhere.
 */
export class ListenerRegistry {
  private readonly listeners = new Map<string, Set<EventListener>>();

  /** Adds a listener; returns true when it is the user's first one. */
  add(userId: string, listener: EventListener): boolean {
    let set = this.listeners.get(userId);
    const first = set === undefined;
    if (set === undefined) {
      set = new Set();
      this.listeners.set(userId, set);
    }
    set.add(listener);
    return first;
  }

  /** Removes a listener; returns true when the user has no listener left. */
  remove(userId: string, listener: EventListener): boolean {
    const set = this.listeners.get(userId);
    if (set === undefined || !set.delete(listener)) return false;
    if (set.size > 0) return false;
    this.listeners.delete(userId);
    return true;
  }

  deliver(delivery: EventDelivery, onListenerError: (error: unknown) => void): void {
    for (const listener of this.listeners.get(delivery.userId) ?? []) {
      try {
        listener(delivery);
      } catch (error) {
        onListenerError(error);
      }
    }
  }

  /** Users with at least one listener. */
  userIds(): string[] {
    return [...this.listeners.keys()];
  }

  clear(): void {
    this.listeners.clear();
  }
}

/** Options of {@link createMemoryEventBus}. */
export interface MemoryEventBusOptions {
  /** Called when a listener throws. @default ignores the error */
  onListenerError?: (error: unknown) => void;
}

/** An {@link EventBus} inside one process: publish reaches the listeners of this process only. */
export function createMemoryEventBus(options: MemoryEventBusOptions = {}): EventBus {
  const registry = new ListenerRegistry();
  const onListenerError = options.onListenerError ?? (() => {});
  return {
    async publish(deliveries) {
      for (const delivery of deliveries) registry.deliver(delivery, onListenerError);
    },
    async subscribe(userId, listener): Promise<EventSubscription> {
      registry.add(userId, listener);
      return {
        unsubscribe: async () => {
          registry.remove(userId, listener);
        },
      };
    },
    async checkHealth() {
      return { ready: true };
    },
    async close() {
      registry.clear();
    },
  };
}
