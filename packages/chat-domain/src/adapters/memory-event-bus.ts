import type { EventDelivery } from '../events.js';
import { refuseUnknownOptions } from '../option-schemas.js';
import type {
  EventBus,
  EventListener,
  EventSubscription,
  ResyncListener,
  ResyncSignal,
} from '../ports/event-bus.js';

/**
 * Delivers a batch to the listeners of each user; a throwing listener does not stop the others.
 * Shared by the in-process bus and by adapters that receive deliveries from elsewhere.
 */
export class ListenerRegistry {
  private readonly listeners = new Map<string, Map<EventListener, ResyncListener | undefined>>();

  /** Adds a listener (with its resync listener); returns true when it is the user's first one. */
  add(userId: string, listener: EventListener, onResync?: ResyncListener): boolean {
    let entries = this.listeners.get(userId);
    const first = entries === undefined;
    if (entries === undefined) {
      entries = new Map();
      this.listeners.set(userId, entries);
    }
    entries.set(listener, onResync);
    return first;
  }

  /** Removes a listener; returns true when the user has no listener left. */
  remove(userId: string, listener: EventListener): boolean {
    const entries = this.listeners.get(userId);
    if (entries === undefined || !entries.delete(listener)) return false;
    if (entries.size > 0) return false;
    this.listeners.delete(userId);
    return true;
  }

  /** Whether `userId` has at least one listener. */
  has(userId: string): boolean {
    return this.listeners.has(userId);
  }

  deliver(delivery: EventDelivery, onListenerError: (error: unknown) => void): void {
    for (const listener of [...(this.listeners.get(delivery.userId)?.keys() ?? [])]) {
      try {
        listener(delivery);
      } catch (error) {
        onListenerError(error);
      }
    }
  }

  /** Gives `signal` to the resync listeners of `userIds` (every user when omitted). */
  resync(signal: ResyncSignal, onListenerError: (error: unknown) => void, userIds?: Iterable<string>): void {
    for (const userId of [...(userIds ?? this.listeners.keys())]) {
      for (const onResync of [...(this.listeners.get(userId)?.values() ?? [])]) {
        try {
          onResync?.(signal);
        } catch (error) {
          onListenerError(error);
        }
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

/**
 * An {@link EventBus} inside one process: publish reaches the listeners of this process only,
 * before it resolves. Nothing is ever missed, so it never sends a resync signal.
 */
export function createMemoryEventBus(options: MemoryEventBusOptions = {}): EventBus {
  refuseUnknownOptions(options, ['onListenerError'], 'createMemoryEventBus');
  const registry = new ListenerRegistry();
  const onListenerError = options.onListenerError ?? (() => {});
  return {
    async publish(deliveries) {
      for (const delivery of deliveries) registry.deliver(delivery, onListenerError);
    },
    async subscribe(userId, listener, onResync): Promise<EventSubscription> {
      registry.add(userId, listener, onResync);
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
