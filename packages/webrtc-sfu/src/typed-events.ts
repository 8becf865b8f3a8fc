/** Maps each event name to the tuple of arguments its listeners receive. */
export type EventMap = Record<string, unknown[]>;

/** A listener of event `K` in map `Events`. */
export type Listener<Events extends EventMap, K extends keyof Events> = (...args: Events[K]) => void;

/**
 * A small typed event emitter. A listener that throws does not stop the other listeners nor the
 * media path that emitted the event; the error is reported as a process warning.
 */
export class TypedEmitter<Events extends EventMap> {
  readonly #listeners = new Map<keyof Events, Set<unknown>>();

  /** Adds a listener and returns a function that removes it. */
  on<K extends keyof Events>(event: K, listener: Listener<Events, K>): () => void {
    let listeners = this.#listeners.get(event);
    if (listeners === undefined) {
      listeners = new Set();
      this.#listeners.set(event, listeners);
    }
    listeners.add(listener);
    return () => this.off(event, listener);
  }

  /** Adds a listener that runs at most once. */
  once<K extends keyof Events>(event: K, listener: Listener<Events, K>): () => void {
    const remove = this.on(event, (...args) => {
      remove();
      listener(...args);
    });
    return remove;
  }

  /** Removes a listener added with {@link TypedEmitter.on}. */
  off<K extends keyof Events>(event: K, listener: Listener<Events, K>): void {
    this.#listeners.get(event)?.delete(listener);
  }

  /** Number of listeners of `event`. */
  listenerCount(event: keyof Events): number {
    return this.#listeners.get(event)?.size ?? 0;
  }

  protected emit<K extends keyof Events>(event: K, ...args: Events[K]): void {
    const listeners = this.#listeners.get(event);
    if (listeners === undefined) return;
    for (const listener of [...listeners]) {
      try {
        (listener as Listener<Events, K>)(...args);
      } catch (error) {
        process.emitWarning(`listener of "${String(event)}" threw: ${String(error)}`, 'SfuListenerWarning');
      }
    }
  }

  protected removeAllListeners(): void {
    this.#listeners.clear();
  }
}
