export { type CreateAppOptions, createApp, defaultFeatures, type ServerApp } from './app.js';
export { type Authenticator, createAuthenticator, type Principal, readToken } from './auth/authenticator.js';
export { createOriginPolicy, type OriginPolicy, type OriginPolicyOptions } from './auth/origin-policy.js';
export { signLocalToken } from './auth/sign-token.js';
export { ConfigError, environmentSchema, loadConfig, type ServerConfig } from './config.js';
export type { FeatureContext, ServerFeature } from './feature.js';
export type { HealthCheck, HealthStatus } from './health/health-check.js';
export { type RunningServer, startServer } from './start-server.js';
