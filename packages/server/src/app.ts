import type { Server } from 'node:http';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { loadOrCreateLocalSecret } from './auth/auth-secret.js';
import { type Authenticator, createAuthenticator } from './auth/authenticator.js';
import { createOriginPolicy } from './auth/origin-policy.js';
import { requireAdmin } from './auth/require-principal.js';
import { createChatFeature } from './chat/chat-feature.js';
import type { ServerConfig } from './config.js';
import type { FeatureContext, ServerFeature } from './feature.js';
import { createEventLoopHealthCheck } from './health/event-loop-health.js';
import { healthOpenApi } from './health/health-openapi.js';
import { createHealthRouter } from './health/health-routes.js';
import { createErrorHandler } from './http/error-handler.js';
import { HttpError } from './http/http-error.js';
import { methodNotAllowed } from './http/method-not-allowed.js';
import { routerUnder } from './http/path-scope.js';
import { answerPlainJson } from './http/plain-json.js';
import { useRequestLogging } from './http/request-logging.js';
import { createLogger } from './logger.js';
import { createMediaNodeFeature } from './meetings/media/media-node-feature.js';
import { httpConnectionsMetric } from './metrics/http-connections-metric.js';
import { createServerMetrics } from './metrics/server-metrics.js';
import { createDocsRouter, createOpenApiHandler } from './openapi/docs-routes.js';
import { buildOpenApiDocument } from './openapi/openapi-document.js';
import { createPreviewFeature } from './preview/preview-feature.js';
import { createSamlFeature } from './saml/saml-feature.js';
import { serverVersion } from './version.js';

/** Options of {@link createApp}. */
export interface CreateAppOptions {
  config: ServerConfig;
  /** @default a pino logger at `config.logLevel` */
  logger?: Logger;
  /** @default HS256 with `config.auth.jwtSecret`, a JWKS URL, or a local secret in DATA_DIR */
  authenticator?: Authenticator;
  /**
   * Builds the features. Tests pass their own list to inject in-memory ports.
   * @default {@link defaultFeatures}
   */
  features?: (context: FeatureContext) => Promise<ServerFeature[]>;
}

/** The Express app plus what a host process needs around it. */
export type ServerApp = Express & {
  /** Lets features accept WebSocket upgrades on the HTTP server. */
  attach(server: Server): void;
  /** Ends every feature's long-lived connections (WebSocket sessions); see `ServerFeature.drain`. */
  drain(): void;
  /** Closes every feature's pools and connections. */
  close(): Promise<void>;
  readonly logger: Logger;
  /** `/metrics` and `/health/` with every detail, without auth: for MANAGEMENT_PORT only. */
  readonly management: express.Router;
};

/** The features of the reference server, in mounting order. */
export async function defaultFeatures(context: FeatureContext): Promise<ServerFeature[]> {
  if (!context.config.cluster.roles.includes('api')) return [await createMediaNodeFeature(context)];
  return [
    await createPreviewFeature(context),
    await createChatFeature(context),
    await createSamlFeature(context),
  ];
}

function defaultAuthenticator(config: ServerConfig, logger: Logger): Authenticator {
  const { jwtSecret, jwksUrl, audience, issuer } = config.auth;
  if (jwksUrl && audience === undefined && issuer === undefined) {
    logger.warn(
      'AUTH_JWKS_URL is set without AUTH_JWT_AUDIENCE or AUTH_JWT_ISSUER: a token the identity provider issued for any other client is accepted here; set both in production',
    );
  }
  return createAuthenticator({
    jwksUrl,
    jwtSecret: jwtSecret ?? (jwksUrl ? undefined : loadOrCreateLocalSecret(config.dataDir)),
    jwksTimeoutMs: config.auth.jwksTimeoutMs,
    audience,
    issuer,
    allowTokensWithoutExpiry: config.auth.allowTokensWithoutExpiry,
    maxTokenAgeSeconds: config.auth.maxTokenAge,
    originPolicy: createOriginPolicy({
      publicUrl: config.publicUrl,
      allowedOrigins: config.auth.allowedOrigins,
      trustProxy: config.trustProxy !== false && config.trustProxy !== 0,
    }),
  });
}

/** Builds the reference server's Express app with its features, health, OpenAPI and docs. */
export async function createApp(options: CreateAppOptions): Promise<ServerApp> {
  const { config } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const authenticator = options.authenticator ?? defaultAuthenticator(config, logger);
  const context: FeatureContext = { config, logger, authenticator };
  const features = await (options.features ?? defaultFeatures)(context);

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  answerPlainJson(app);
  useRequestLogging(app, logger, config.requestLogLevel);
  // Health and docs sit under their own paths, so other requests skip them after one path test.
  const eventLoop = createEventLoopHealthCheck();
  const checks = [
    ...(authenticator.health ? [authenticator.health] : []),
    ...features.flatMap((feature) => feature.health ?? []),
    eventLoop,
  ];
  const servesApi = config.cluster.roles.includes('api');
  // With MANAGEMENT_PORT, /metrics and the detailed /health/ live on their own port (main.ts).
  const management = express.Router();
  management.use('/health', createHealthRouter(checks));
  // Every role has metrics: a media node's are its SFU's sessions and traffic.
  let httpServer: Server | undefined;
  const metrics = createServerMetrics(
    app,
    checks,
    [httpConnectionsMetric(() => httpServer), ...features.flatMap((feature) => feature.metrics ?? [])],
    logger,
  );
  const serveMetrics: express.RequestHandler = async (_request, response) => {
    response.setHeader('Content-Type', metrics.contentType);
    response.send(await metrics.metrics());
  };
  management.get('/metrics', serveMetrics);
  if (config.managementPort === undefined) {
    const guard = config.metricsPublic ? [] : [requireAdmin(authenticator)];
    app.get('/metrics', ...guard, serveMetrics);
  }
  const canSeeDetails = async (request: express.Request) => {
    if (config.healthDetailsPublic) return true;
    return authenticator.authenticate(request).then(
      (principal) => principal.isAdmin,
      () => false,
    );
  };
  app.use('/health', createHealthRouter(checks, { canSeeDetails }));
  const asyncApiDocument = features.find((feature) => feature.asyncapi)?.asyncapi;
  const document = buildOpenApiDocument(
    serverVersion,
    [
      { basePath: '/', fragment: healthOpenApi },
      ...features.flatMap((feature) =>
        feature.openapi ? [{ basePath: feature.basePath, fragment: feature.openapi }] : [],
      ),
    ],
    { publicUrl: config.publicUrl, asyncApi: asyncApiDocument !== undefined },
  );
  // A media node serves its health and metrics, nothing else.
  if (servesApi) app.get('/openapi.json', createOpenApiHandler(document));
  if (servesApi && asyncApiDocument) app.get('/asyncapi.json', createOpenApiHandler(asyncApiDocument));
  if (servesApi && config.docsEnabled)
    app.use(
      '/docs',
      createDocsRouter({ asyncApi: asyncApiDocument !== undefined, publicUrl: config.publicUrl }),
    );
  for (const { basePath, paths, router } of features) {
    app.use(basePath, paths?.length ? routerUnder(paths, router) : router);
  }
  if (servesApi) app.use(methodNotAllowed(document.paths));
  app.use((request, _response, next) => {
    next(new HttpError(404, `no route for ${request.method} ${request.path}`));
  });
  app.use(createErrorHandler());

  let closed: Promise<void> | undefined;
  return Object.assign(app, {
    logger,
    management,
    attach(server: Server) {
      httpServer = server;
      for (const feature of features) feature.attach?.(server);
    },
    drain() {
      for (const feature of features) {
        try {
          feature.drain?.();
        } catch (error) {
          logger.error({ err: error, feature: feature.name }, 'a feature failed to drain its connections');
        }
      }
    },
    close() {
      eventLoop.close();
      closed ??= Promise.allSettled(features.map((feature) => feature.close?.())).then(() => undefined);
      return closed;
    },
  });
}
