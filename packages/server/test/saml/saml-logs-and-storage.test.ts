import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { loadConfig } from '../../src/config.js';
import { createSamlFeature } from '../../src/saml/saml-feature.js';
import { startServer } from '../../src/start-server.js';
import { testJwtSecret } from '../support/test-server.js';
import {
  idpProperties,
  type Json,
  type SamlClient,
  samlPostgresUrl,
  startSamlServer,
} from './saml-test-support.js';

const pemBody = (pem: string) => pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, '');

describe('logs', () => {
  it('never contain a private key, whatever the request does, even at trace level', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, callback) {
        lines.push(String(chunk));
        callback();
      },
    });
    const dataDir = mkdtempSync(join(tmpdir(), 'saml-logs-'));
    const config = loadConfig({ DATA_DIR: dataDir, AUTH_JWT_SECRET: testJwtSecret, LOG_LEVEL: 'trace' });
    const app = await createApp({
      config,
      logger: pino({ level: 'trace' }, sink),
      features: async (context) => [await createSamlFeature(context)],
    });
    const running = await startServer(app, { host: '127.0.0.1', port: 0 });
    const token = await signLocalToken(testJwtSecret, { userId: 'admin-1', admin: true });
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`http://127.0.0.1:${running.port}/admin/auth${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as Json }));
    try {
      const { generateKeyPairSync } = await import('node:crypto');
      const pkcs1 = String(
        generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
          type: 'pkcs1',
          format: 'pem',
        }),
      );
      expect((await call('PUT', '/saml/logs.example', { 'sp.privatekey': pkcs1 })).status).toBe(200);
      expect((await call('PUT', '/saml/logs.example', { 'sp.privatekey': pkcs1.slice(0, 400) })).status).toBe(
        400,
      );
      expect((await call('PUT', '/saml/logs.example', { 'sp.x509cert': pkcs1 })).status).toBe(400);
      const misplaced = await call('PUT', '/saml/logs.example', {
        'organization.name': pkcs1,
        'sp.entityid': pemBody(pkcs1),
      });
      expect(misplaced.status).toBe(400);
      expect(JSON.stringify(misplaced.body)).not.toContain(pemBody(pkcs1).slice(0, 30));
      const generated = await call('POST', '/saml-generate/logs.example');
      expect(generated.status).toBe(200);
      const exported = await call('GET', '/saml/logs.example');
      expect((await call('POST', '/saml/copy.example?validate=true', exported.body)).status).toBe(400);
      const sp = { 'sp.entityid': 'urn:sp', 'sp.assertion_consumer_service.url': 'https://sp.example/acs' };
      const copied = await call('POST', '/saml/copy.example', {
        ...exported.body,
        ...sp,
        ...(await idpProperties()),
      });
      expect(copied.status).toBe(200);
      expect((await call('GET', '/saml-validate/copy.example')).status).toBe(200);
      const keys = [pkcs1, String(generated.body['sp.privatekey'])].map(pemBody);
      const log = lines.join('');
      expect(lines.length).toBeGreaterThan(10);
      expect(log).toContain('saml certificate generated');
      expect(log).toContain('"url":"/admin/auth/saml-generate/logs.example"');
      expect(log).not.toMatch(/PRIVATE KEY/);
      for (const key of keys) {
        for (let offset = 0; offset + 40 <= key.length; offset += 40)
          expect(log).not.toContain(key.slice(offset, offset + 40));
      }
    } finally {
      await running.stop(1_000);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('storage', () => {
  const servers: SamlClient[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop().catch(() => undefined);
  });

  it('keeps properties in a SQLite file across a restart', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'saml-sqlite-http-'));
    const env = { SAML_DATABASE_URL: join(folder, 'saml.db') };
    const first = await startSamlServer({ env });
    await first.call('PUT', '/saml/restart.example', { json: { 'sp.entityid': 'urn:kept' } });
    await first.stop();
    const second = await startSamlServer({ env });
    servers.push(second);
    expect((await second.call('GET', '/saml/restart.example?raw=true')).body).toEqual({
      'sp.entityid': 'urn:kept',
    });
  });

  it('keeps both of two concurrent PUTs of different keys (default SQLite file in DATA_DIR)', async () => {
    const server = await startSamlServer();
    servers.push(server);
    const keys = [
      'organization.name',
      'organization.displayname',
      'organization.url',
      'contacts.technical.given_name',
    ];
    const values: Record<string, string> = {
      'organization.name': 'Acme',
      'organization.displayname': 'Acme Ltd',
      'organization.url': 'https://acme.example',
      'contacts.technical.given_name': 'Tech',
    };
    await Promise.all(
      keys.map((key) => server.call('PUT', '/saml/concurrent.example', { json: { [key]: values[key] } })),
    );
    expect((await server.call('GET', '/saml/concurrent.example?raw=true')).body).toEqual(values);
  });

  it('shares properties between two servers on PostgreSQL, concurrent PUTs of different keys included', async () => {
    const url = await samlPostgresUrl();
    const domain = `pg-${Date.now()}.example`;
    const env = { SAML_DATABASE_URL: url };
    const [first, second] = await Promise.all([startSamlServer({ env }), startSamlServer({ env })]);
    servers.push(first, second);
    await Promise.all([
      first.call('PUT', `/saml/${domain}`, { json: { 'sp.entityid': 'urn:one' } }),
      second.call('PUT', `/saml/${domain}`, { json: { 'idp.entityid': 'urn:two' } }),
      first.call('PUT', `/saml/${domain}`, { json: { 'organization.lang': 'it' } }),
    ]);
    expect((await second.call('GET', `/saml/${domain}?raw=true`)).body).toEqual({
      'sp.entityid': 'urn:one',
      'idp.entityid': 'urn:two',
      'organization.lang': 'it',
    });
    const failed = await first.call('POST', `/saml/${domain}`, {
      json: { 'sp.entityid': 'urn:new', 'idp.x509cert': 'broken' },
    });
    expect(failed.status).toBe(400);
    expect((await second.call('GET', `/saml/${domain}?raw=true`)).body).toEqual({
      'sp.entityid': 'urn:one',
      'idp.entityid': 'urn:two',
      'organization.lang': 'it',
    });
    await second.call('DELETE', `/saml/${domain}`);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const rows = await client.query('SELECT count(*)::int AS n FROM saml_properties WHERE domain = $1', [
      domain,
    ]);
    await client.end();
    expect(rows.rows[0].n).toBe(0);
  });

  it('answers 503 { ok: false } with Retry-After when the database is gone', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'saml-gone-'));
    const server = await startSamlServer({ env: { SAML_DATABASE_URL: join(folder, 'saml.db') } });
    servers.push(server);
    await server.server.app.close();
    const response = await server.call('GET', '/saml/gone.example');
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.body).toMatchObject({ ok: false, code: 'store_failed' });
  });
});
