import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { type CreateAppOptions, createApp, type ServerApp } from '../../src/app.js';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { loadConfig, type ServerConfig } from '../../src/config.js';
import type { FeatureContext, ServerFeature } from '../../src/feature.js';
import { startServer } from '../../src/start-server.js';

/** A server on a random loopback port with its own temporary DATA_DIR. */
export interface TestServer {
  url: string;
  app: ServerApp;
  config: ServerConfig;
  dataDir: string;
  stop(): Promise<void>;
}

/** Options of {@link startTestServer}. */
export interface TestServerOptions {
  /** Extra environment variables, parsed by the real config schema. */
  env?: Record<string, string>;
  /** Features to mount; default: the reference server's own. */
  features?: (context: FeatureContext) => Promise<ServerFeature[]>;
  authenticator?: CreateAppOptions['authenticator'];
  /** DATA_DIR to use and keep on `stop()` (to start another server on it); default: a new one, removed. */
  dataDir?: string;
}

/** Shared HS256 secret of test servers; sign tokens with `signLocalToken(testJwtSecret, ...)`. */
export const testJwtSecret = 'test-secret-of-at-least-thirty-two-bytes!';

/** Starts a server for one test file; call `stop()` in `afterAll`. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'collab-test-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    AUTH_JWT_SECRET: testJwtSecret,
    LOG_LEVEL: 'silent',
    // No LibreOffice pool unless a test asks for one (DOCUMENT_CONVERTER=libreoffice): it costs cores.
    DOCUMENT_CONVERTER: 'none',
    // Test files upload far more than a client would; the upload limit has a test of its own.
    PREVIEW_UPLOADS_PER_MINUTE: '0',
    ...options.env,
  });
  const app = await createApp({
    config,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    ...(options.features ? { features: options.features } : {}),
    ...(options.authenticator ? { authenticator: options.authenticator } : {}),
  });
  const running = await startServer(app, { host: '127.0.0.1', port: 0 });
  return {
    url: `http://127.0.0.1:${running.port}`,
    app,
    config,
    dataDir,
    async stop() {
      await running.stop(1_000);
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** One dependency as `/health/` lists it. */
export interface HealthDependency<Details> {
  name: string;
  live: boolean;
  ready: boolean;
  required: boolean;
  details: Details;
}

/** `GET /health/` as an administrator, who sees every dependency's details. */
export async function fetchHealth(baseUrl: string): Promise<Response> {
  const token = await signLocalToken(testJwtSecret, {
    userId: '00000000-0000-4000-8000-000000000001',
    admin: true,
  });
  return fetch(`${baseUrl}/health/`, { headers: { authorization: `Bearer ${token}` } });
}

/**
 * The dependency `name` of the `/health/` answer of the server at `baseUrl`.
 * @throws when `/health/` lists no such dependency
 */
export async function healthDependency<Details = Record<string, unknown>>(
  baseUrl: string,
  name: string,
): Promise<HealthDependency<Details>> {
  const health = (await (await fetchHealth(baseUrl)).json()) as {
    dependencies: HealthDependency<Details>[];
  };
  const dependency = health.dependencies.find((entry) => entry.name === name);
  if (!dependency) throw new Error(`no ${name} in /health/`);
  return dependency;
}
