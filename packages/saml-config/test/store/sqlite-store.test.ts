import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteSamlPropertyStore } from '../../src/sqlite.js';
import { describeSamlPropertyStoreConformance } from '../../src/testing/vitest.js';

const folder = mkdtempSync(join(tmpdir(), 'saml-sqlite-'));

describeSamlPropertyStoreConformance('SQLite file', {
  create: async () => createSqliteSamlPropertyStore({ filename: join(folder, 'nested', 'saml.sqlite') }),
  cleanup: async () => rmSync(folder, { recursive: true, force: true }),
});

describe('SQLite SAML property store', () => {
  it('keeps the properties in the file across a close and reopen', async () => {
    const filename = join(mkdtempSync(join(tmpdir(), 'saml-sqlite-')), 'saml.sqlite');
    const first = createSqliteSamlPropertyStore({ filename });
    await first.write('example.com', { set: { 'sp.entityid': 'urn:kept', 'security.sign_metadata': true } });
    await first.close();
    const second = createSqliteSamlPropertyStore({ filename });
    expect(await second.get('example.com')).toEqual({
      'sp.entityid': 'urn:kept',
      'security.sign_metadata': true,
    });
    await second.close();
  });

  it('refuses a table name that is not a plain identifier', () => {
    expect(() =>
      createSqliteSamlPropertyStore({ filename: ':memory:', tableName: 'x; DROP TABLE y' }),
    ).toThrow(/tableName/);
  });
});
