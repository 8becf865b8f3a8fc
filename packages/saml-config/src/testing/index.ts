export { type FixtureRoute, type FixtureServer, startFixtureServer } from './fixture-server.js';
export {
  describeSamlPropertyStoreConformance,
  type SamlPropertyStoreConformanceOptions,
} from './store-conformance.js';
