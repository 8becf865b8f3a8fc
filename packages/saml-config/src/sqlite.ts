// The `@collab-suite/saml-config/sqlite` entry: needs better-sqlite3 (an optional peer dependency).
export {
  createSqliteSamlPropertyStore,
  type SqliteSamlPropertyStoreOptions,
  sqliteSamlPropertyStoreOptionsSchema,
} from './store/sqlite-property-store.js';
