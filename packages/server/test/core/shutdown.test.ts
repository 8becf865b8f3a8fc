import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../support/test-server.js';

const mainScript = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

function slowFeature() {
  const router = Router();
  router.get('/slow', async (_request, response) => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    response.json({ finished: true });
  });
  router.get('/forever', () => new Promise(() => {}));
  let closed = false;
  return {
    feature: {
      name: 'slow',
      basePath: '/',
      router,
      close: async () => {
        closed = true;
      },
    },
    wasClosed: () => closed,
  };
}

describe('graceful shutdown', () => {
  it('lets an in-flight request finish, refuses new connections and closes the features', async () => {
    const slow = slowFeature();
    const server = await startTestServer({ features: async () => [slow.feature] });
    const inFlight = fetch(`${server.url}/slow`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const stopped = server.stop();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ finished: true });
    await stopped;
    await expect(fetch(`${server.url}/slow`)).rejects.toThrow();
    expect(slow.wasClosed()).toBe(true);
  });

  it('cuts a request that does not finish within the bound', async () => {
    const slow = slowFeature();
    const server = await startTestServer({ features: async () => [slow.feature] });
    const hanging = fetch(`${server.url}/forever`).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await server.stop();
    expect(await hanging).toBeInstanceOf(Error);
    expect(slow.wasClosed()).toBe(true);
  });
});

function runMain(env: Record<string, string>, signalAfterListening?: NodeJS.Signals) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'collab-main-'));
  const child = spawn(process.execPath, [mainScript], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let signalled = false;
  child.stdout.on('data', (chunk) => {
    stdout += String(chunk);
    if (signalAfterListening && !signalled && stdout.includes('server listening')) {
      signalled = true;
      child.kill(signalAfterListening);
    }
  });
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the server process (built dist/main.js)', () => {
  it('refuses to start on a bad variable, naming it', async () => {
    const result = await runMain({ PORT: 'eighty', PREVIEW_MAX_INPUT_PIXELS: '-5' });
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('PORT');
    expect(result.stderr).toContain('"eighty"');
    expect(result.stderr).toContain('PREVIEW_MAX_INPUT_PIXELS');
  });

  it('exits 0 on SIGTERM', async () => {
    const result = await runMain({}, 'SIGTERM');
    expect(result.stdout).toContain('shutting down');
    expect(result.code).toBe(0);
  });
});

describe('one server process per embedded chat database', () => {
  it('a second server on the same DATA_DIR stops at start-up naming the first, which goes on', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'collab-main-shared-'));
    const env = { PATH: process.env.PATH, DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0' };
    const first = spawn(process.execPath, [mainScript], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const firstExited = new Promise<number | null>((resolve) => first.on('exit', resolve));
    let firstOutput = '';
    await new Promise<void>((resolve, reject) => {
      first.stdout.on('data', (chunk) => {
        firstOutput += String(chunk);
        if (firstOutput.includes('server listening')) resolve();
      });
      first.on('exit', () => reject(new Error(`the first server exited: ${firstOutput}`)));
    });
    try {
      const second = await runMain({ DATA_DIR: dataDir });
      // One line naming the variable, the file and the process that has it (69: a dependency).
      expect(second.code).toBe(69);
      expect(second.stderr).toContain('CHAT_DATABASE_URL');
      expect(second.stderr).not.toContain('    at ');
      expect(second.stderr).toContain(path.join(dataDir, 'chat.db'));
      expect(second.stderr).toContain(`process ${first.pid}`);
      const port = Number(/"port":(\d+)/.exec(firstOutput)?.[1]);
      const health = await fetch(`http://127.0.0.1:${port}/health/ready/`);
      expect(health.status).toBe(200);
    } finally {
      first.kill('SIGTERM');
    }
    expect(await firstExited).toBe(0);
    expect(existsSync(path.join(dataDir, 'chat.db-owner'))).toBe(false);
  });
});
