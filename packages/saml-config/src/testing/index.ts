// The `@collab-suite/saml-config/testing` entry: plain helpers usable from any test runner (nothing
// here imports vitest). The vitest conformance suite is in `@collab-suite/saml-config/testing/vitest`.
export { type FixtureRoute, type FixtureServer, startFixtureServer } from './fixture-server.js';
