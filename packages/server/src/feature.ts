import type { Server } from 'node:http';
import type { Router } from 'express';
import type { Logger } from 'pino';
import type { Authenticator } from './auth/authenticator.js';
import type { AsyncApiDocument } from './chat/events-asyncapi.js';
import type { ServerConfig } from './config.js';
import type { HealthCheck } from './health/health-check.js';
import type { FeatureMetric } from './metrics/feature-metric.js';
import type { OpenApiFragment } from './openapi/openapi-document.js';

/** What every feature factory receives from {@link createApp}. */
export interface FeatureContext {
  config: ServerConfig;
  logger: Logger;
  authenticator: Authenticator;
}

/**
 * One API of the server (previews, SAML, chat...): its routes, their OpenAPI description, the
 * dependencies it reports on `/health/`, and its lifecycle.
 */
export interface ServerFeature {
  name: string;
  /** Where `router` is mounted, e.g. `/` or `/admin/auth`. */
  basePath: string;
  /** Routes, ending with the feature's own error handler (`createErrorHandler(format)`). */
  router: Router;
  /**
   * Path prefixes, relative to `basePath`, that every route of the feature lives under, e.g.
   * `['/rooms', '/attachments']`. Requests elsewhere skip `router` after one path test instead of
   * walking all its layers. A route outside them is never reached.
   * @default every request under `basePath` goes through `router`
   */
  paths?: string[];
  /** Paths relative to `basePath`, and component schemas. */
  openapi?: OpenApiFragment;
  /** The AsyncAPI description of the feature's WebSocket, served at `/asyncapi.json`. */
  asyncapi?: AsyncApiDocument;
  health?: HealthCheck[];
  /** Series of its own on `/metrics` (its health details are reported there already). */
  metrics?: FeatureMetric[];
  /** Called once with the HTTP server, e.g. to accept WebSocket upgrades. */
  attach?(server: Server): void;
  /**
   * Called once when the server stops accepting, before requests in flight are waited for: ends
   * long-lived connections (WebSocket sessions) that would otherwise hold the shutdown until its
   * deadline.
   */
  drain?(): void;
  /** Releases pools, connections and timers; called once at shutdown. */
  close?(): Promise<void>;
}
