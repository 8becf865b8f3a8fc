import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isSamlConfigError } from '../../src/index.js';
import { createPostgresSamlPropertyStore } from '../../src/postgres.js';
import { describeSamlPropertyStoreConformance } from '../../src/testing/vitest.js';

const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const databaseName = 'collab_test_saml';

async function testDatabaseUrl(name = databaseName): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${name}`).catch(() => undefined);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.href;
}

async function dropTable(connectionString: string, table: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  await client.query(`DROP TABLE IF EXISTS ${table}`);
  await client.end();
}

let connectionString = '';

describeSamlPropertyStoreConformance('PostgreSQL', {
  create: async () => {
    connectionString = await testDatabaseUrl();
    await dropTable(connectionString, 'saml_properties_conformance');
    return createPostgresSamlPropertyStore({ connectionString, tableName: 'saml_properties_conformance' });
  },
  cleanup: () => dropTable(connectionString, 'saml_properties_conformance'),
});

describe('PostgreSQL SAML property store', () => {
  it('reports open, idle and waiting connections of its pool', async () => {
    const store = await createPostgresSamlPropertyStore({
      connectionString: await testDatabaseUrl('api_desc_saml_pool'),
      maxConnections: 1,
    });
    try {
      expect(store.poolStats()).toEqual({ total: 1, idle: 1, waiting: 0 });
      const reads = Array.from({ length: 4 }, () => store.get('example.com'));
      // One connection at most: at least three of the four reads wait for it.
      const busy = store.poolStats();
      expect(busy.total).toBe(1);
      expect(busy.waiting).toBeGreaterThanOrEqual(3);
      await Promise.all(reads);
      expect(store.poolStats()).toEqual({ total: 1, idle: 1, waiting: 0 });
    } finally {
      await store.close();
    }
  });

  it('fails with store_failed when the database cannot be reached', async () => {
    const error = await createPostgresSamlPropertyStore({
      connectionString: 'postgres://postgres@127.0.0.1:1/none',
    }).catch((caught: unknown) => caught);
    expect(isSamlConfigError(error, 'store_failed')).toBe(true);
  });

  it('lets two stores on the same table see each other’s writes and create the table concurrently', async () => {
    const url = await testDatabaseUrl();
    await dropTable(url, 'saml_properties_shared');
    const [first, second] = await Promise.all([
      createPostgresSamlPropertyStore({ connectionString: url, tableName: 'saml_properties_shared' }),
      createPostgresSamlPropertyStore({ connectionString: url, tableName: 'saml_properties_shared' }),
    ]);
    await Promise.all([
      first.write('example.com', { set: { 'sp.entityid': 'urn:one' } }),
      second.write('example.com', { set: { 'idp.entityid': 'urn:two' } }),
    ]);
    expect(await first.get('example.com')).toEqual({ 'sp.entityid': 'urn:one', 'idp.entityid': 'urn:two' });
    await first.close();
    await second.close();
    await dropTable(url, 'saml_properties_shared');
  });
});
