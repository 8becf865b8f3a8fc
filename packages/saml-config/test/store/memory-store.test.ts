import { createMemorySamlPropertyStore } from '../../src/index.js';
import { describeSamlPropertyStoreConformance } from '../../src/testing/index.js';

describeSamlPropertyStoreConformance('in-memory', { create: async () => createMemorySamlPropertyStore() });
