// The `@collab-suite/saml-config/postgres` entry: needs pg (an optional peer dependency).
export {
  createPostgresSamlPropertyStore,
  type PostgresPoolStats,
  type PostgresSamlPropertyStore,
  type PostgresSamlPropertyStoreOptions,
  postgresSamlPropertyStoreOptionsSchema,
} from './store/postgres-property-store.js';
