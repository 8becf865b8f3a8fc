import {
  createSamlConfigService,
  type DocumentFetcher,
  type SamlConfigService,
  type SamlPropertyStore,
} from '@collab-suite/saml-config';
import { Router } from 'express';
import { requireAdmin } from '../auth/require-principal.js';
import type { FeatureContext, ServerFeature } from '../feature.js';
import { createErrorHandler } from '../http/error-handler.js';
import { methodNotAllowed } from '../http/method-not-allowed.js';
import { databasePoolMetrics } from '../metrics/database-pool-metrics.js';
import { samlErrorBody } from './error-status.js';
import { samlOpenApi } from './saml-openapi.js';
import { samlFetcherFromConfig, samlStoreFromConfig } from './saml-ports.js';
import { createSamlRoutes } from './saml-routes.js';

/** Ports tests may replace; the rest comes from the configuration. */
export interface SamlFeatureOverrides {
  /** @default SQLite at SAML_DATABASE_URL (`<DATA_DIR>/saml.db`), or PostgreSQL for a postgres:// URL */
  store?: SamlPropertyStore;
  /** @default the HTTP fetcher with the SAML_FETCH_* limits */
  fetcher?: DocumentFetcher;
  /** @default the system clock */
  now?: () => Date;
}

/** The SAML feature plus its service, for tests. */
export type SamlFeature = ServerFeature & { service: SamlConfigService };

const ADMIN_PATHS = ['/saml', '/saml-validate', '/saml-generate', '/saml-metadata'];

/**
 * The SAML configuration API at SAML_BASE_PATH (default `/admin/auth`), for administrators only:
 * no token 401, a token without the `admin` role 403.
 */
export async function createSamlFeature(
  context: FeatureContext,
  overrides: SamlFeatureOverrides = {},
): Promise<SamlFeature> {
  const { config, logger, authenticator } = context;
  const store = overrides.store ?? (await samlStoreFromConfig(config));
  const service = createSamlConfigService({
    store,
    fetcher: overrides.fetcher ?? samlFetcherFromConfig(config),
    publicUrl: config.publicUrl,
    maxDocumentBytes: config.saml.maxDocumentBytes,
    expiryWarningDays: config.saml.expiryWarningDays,
    ...(overrides.now ? { now: overrides.now } : {}),
    logger: logger.child({ feature: 'saml' }),
  });
  const router = Router();
  router.use(ADMIN_PATHS, requireAdmin(authenticator));
  router.use(createSamlRoutes({ service, maxBodyBytes: config.saml.maxDocumentBytes }));
  router.use(ADMIN_PATHS, methodNotAllowed(samlOpenApi.paths, config.saml.basePath));
  router.use(ADMIN_PATHS, createErrorHandler(samlErrorBody));
  let closing: Promise<void> | undefined;
  return {
    name: 'saml',
    basePath: config.saml.basePath,
    router,
    openapi: samlOpenApi,
    service,
    metrics: databasePoolMetrics('saml', store),
    health: [
      {
        name: 'saml-store',
        required: false,
        check: async () => {
          try {
            await store.get('health.invalid');
            return { live: true, ready: true };
          } catch (error) {
            return { live: false, ready: false, details: { error: (error as Error).message } };
          }
        },
      },
    ],
    close() {
      closing ??= Promise.all([service.close(), store.close()]).then(() => undefined);
      return closing;
    },
  };
}
