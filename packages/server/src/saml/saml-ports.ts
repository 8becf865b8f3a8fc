import {
  createHttpDocumentFetcher,
  type DocumentFetcher,
  type SamlPropertyStore,
} from '@collab-suite/saml-config';
import { createPostgresSamlPropertyStore } from '@collab-suite/saml-config/postgres';
import { createSqliteSamlPropertyStore } from '@collab-suite/saml-config/sqlite';
import type { ServerConfig } from '../config.js';
import { openNamed } from '../startup-error.js';

/** Whether the SAML database setting names PostgreSQL (a URL) rather than a SQLite file. */
export function isPostgresUrl(databaseUrl: string): boolean {
  return /^postgres(ql)?:\/\//i.test(databaseUrl);
}

/** The property store the configuration names: PostgreSQL for a `postgres://` URL, else a SQLite file. */
export async function samlStoreFromConfig(config: ServerConfig): Promise<SamlPropertyStore> {
  const { databaseUrl } = config.saml;
  if (isPostgresUrl(databaseUrl)) {
    return openNamed('SAML_DATABASE_URL', 'PostgreSQL', databaseUrl, () =>
      createPostgresSamlPropertyStore({
        connectionString: databaseUrl,
        connectionTimeoutMs: config.database.connectTimeoutMs,
        queryTimeoutMs: config.database.queryTimeoutMs,
      }),
    );
  }
  return openNamed('SAML_DATABASE_URL', 'SQLite', databaseUrl, async () =>
    createSqliteSamlPropertyStore({ filename: databaseUrl }),
  );
}

/** The URL fetcher with the configured size, time and address limits. */
export function samlFetcherFromConfig(config: ServerConfig): DocumentFetcher {
  return createHttpDocumentFetcher({
    maxBytes: config.saml.maxDocumentBytes,
    timeoutMs: config.saml.fetchTimeoutMs,
    allowedAddresses: config.saml.fetchAllowedAddresses,
  });
}
