import { createMemorySamlPropertyStore } from '../../src/index.js';
import { describeSamlPropertyStoreConformance } from '../../src/testing/vitest.js';

describeSamlPropertyStoreConformance('in-memory', { create: async () => createMemorySamlPropertyStore() });
