// The `@collab-suite/saml-config/testing/vitest` entry: the conformance suite of property stores,
// registered with vitest's describe/it (vitest >= 4, an optional peer dependency).
export {
  describeSamlPropertyStoreConformance,
  type SamlPropertyStoreConformanceOptions,
} from './store-conformance.js';
