import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'collab-auth-config-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the settings of token claims and origins', () => {
  it('reads ALLOWED_ORIGINS as a list of origins and refuses a URL with a path or another scheme', () => {
    const config = loadConfig({
      DATA_DIR: dataDir,
      ALLOWED_ORIGINS: 'https://app.example.com, http://127.0.0.1:3000/',
    });
    expect(config.auth.allowedOrigins).toEqual(['https://app.example.com', 'http://127.0.0.1:3000']);
    for (const bad of [
      'https://app.example.com/admin',
      'ftp://files.example.com',
      'app.example.com',
      'https://a.example?x',
    ]) {
      expect(() => loadConfig({ DATA_DIR: dataDir, ALLOWED_ORIGINS: bad })).toThrow(
        /ALLOWED_ORIGINS.*expected origins/,
      );
    }
  });

  it('requires exp by default and leaves the token age unbounded', () => {
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(config.auth).toMatchObject({
      allowTokensWithoutExpiry: false,
      maxTokenAge: undefined,
      jwksTimeoutMs: 3000,
    });
    expect(() => loadConfig({ DATA_DIR: dataDir, AUTH_MAX_TOKEN_AGE: '0' })).toThrow(/AUTH_MAX_TOKEN_AGE/);
  });

  it('warns at start-up when a JWKS is used without AUTH_JWT_AUDIENCE or AUTH_JWT_ISSUER', async () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const build = async (env: Record<string, string>) => {
      const app = await createApp({
        config: loadConfig({ DATA_DIR: dataDir, AUTH_JWKS_URL: 'http://127.0.0.1:9/jwks.json', ...env }),
        logger,
        features: async () => [],
      });
      await app.close();
    };
    await build({});
    expect(lines.filter((line) => line.msg.includes('AUTH_JWT_AUDIENCE'))).toHaveLength(1);
    await build({ AUTH_JWT_AUDIENCE: 'collab-suite', AUTH_JWT_ISSUER: 'https://idp.example.org' });
    expect(lines.filter((line) => line.msg.includes('AUTH_JWT_AUDIENCE'))).toHaveLength(1);
  });
});
