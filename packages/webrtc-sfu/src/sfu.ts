import { randomUUID } from 'node:crypto';
import { type AudioCodec, opusCodec } from './audio/opus-codec.js';
import { SfuError } from './errors.js';
import { type IceServer, parseSfuOptions, type SfuOptions, type SfuOptionsInput } from './options.js';
import { Router } from './router.js';
import { createSfuTotals, type SfuStats } from './sfu-stats.js';

/** The SFU service: routers by id, and the ICE servers to hand to clients. */
export interface Sfu {
  /** The parsed, fully defaulted options. */
  readonly options: SfuOptions;
  /** STUN and TURN servers for clients' `RTCPeerConnection` configuration. */
  readonly iceServers: readonly IceServer[];
  /** The open routers by id. */
  readonly routers: ReadonlyMap<string, Router>;
  /**
   * Opens a router (one per meeting).
   * @throws SfuError `router_exists` when a router with that id is open, `closed` after {@link Sfu.close}.
   */
  createRouter(id?: string): Router;
  /** The open router with that id, if any. */
  getRouter(id: string): Router | undefined;
  /** What the SFU holds now and has carried since it was created, for monitoring. */
  stats(): SfuStats;
  /** Closes every router. Idempotent. */
  close(): void;
}

/** Ports of {@link createSfu}. */
export interface SfuPorts {
  /** The codec of the audio mixer. @default opusCodec */
  audioCodec?: AudioCodec;
}

/**
 * Creates the SFU service. Options are parsed once.
 * @throws SfuError `invalid_options` naming the wrong field.
 */
export function createSfu(input?: SfuOptionsInput, ports: SfuPorts = {}): Sfu {
  const options = parseSfuOptions(input);
  const audioCodec = ports.audioCodec ?? opusCodec;
  const routers = new Map<string, Router>();
  const totals = createSfuTotals();
  let closed = false;
  return {
    options,
    iceServers: options.ice.servers,
    routers,
    createRouter(id = randomUUID()) {
      if (closed) throw new SfuError('closed', 'the SFU is closed');
      if (routers.has(id)) throw new SfuError('router_exists', `a router with id ${id} is already open`);
      const router = new Router(
        id,
        options,
        audioCodec,
        (closing) => {
          if (routers.get(closing.id) === closing) routers.delete(closing.id);
        },
        totals,
      );
      routers.set(id, router);
      return router;
    },
    getRouter: (id) => routers.get(id),
    stats() {
      let sessions = 0;
      let producers = 0;
      let consumers = 0;
      for (const router of routers.values()) {
        sessions += router.sessions.size;
        producers += router.producerCount;
        for (const session of router.sessions.values()) consumers += session.consumers.length;
      }
      return { routers: routers.size, sessions, producers, consumers, ...totals };
    },
    close() {
      if (closed) return;
      closed = true;
      for (const router of [...routers.values()]) router.close();
    },
  };
}
