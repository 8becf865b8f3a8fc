import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isChatError, type RoomRecord } from '@collab-suite/chat-domain';
import { createSqliteChatStore } from '@collab-suite/chat-domain/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const packageRoot = dirname(dirname(fileURLToPath(import.meta.url)));
let folder = '';
let count = 0;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'chat-sqlite-owner-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const nextFile = () => {
  count += 1;
  return join(folder, `chat-${count}.db`);
};

const room = (id: string): RoomRecord => ({
  id,
  type: 'group',
  name: 'Owned',
  description: '',
  meetingId: null,
  createdAt: new Date(1000),
  updatedAt: new Date(1000),
  pictureUpdatedAt: null,
});

function refusal(open: () => unknown): unknown {
  try {
    open();
  } catch (error) {
    return error;
  }
  throw new Error('expected the store to be refused');
}

/** A process that runs until killed, and its id. */
async function runningProcess() {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('spawn', resolve));
  return child;
}

describe('one store of one process per SQLite file', () => {
  it('refuses a second store of this process on an open file, then accepts one once it is closed', async () => {
    const filename = nextFile();
    const first = createSqliteChatStore({ filename });
    await first.insertRoom(room('1a4f7a52-6e2c-4f7e-9a55-0b1d1d2f3a01'), []);
    const error = refusal(() => createSqliteChatStore({ filename }));
    expect(isChatError(error, 'dependency_failed')).toBe(true);
    expect((error as Error).message).toContain(filename);
    expect((error as Error).message).toContain('another store of this process');
    // The refused store touched nothing: the first goes on.
    await first.insertRoom(room('1a4f7a52-6e2c-4f7e-9a55-0b1d1d2f3a02'), []);
    await first.close();
    expect(existsSync(`${filename}-owner`)).toBe(false);
    const second = createSqliteChatStore({ filename, writerThread: false });
    expect(await second.getRoom('1a4f7a52-6e2c-4f7e-9a55-0b1d1d2f3a02')).toMatchObject({ name: 'Owned' });
    await second.close();
  });

  it('refuses a file that a running process has claimed, naming it', async () => {
    const filename = nextFile();
    const other = await runningProcess();
    try {
      await writeFile(`${filename}-owner`, String(other.pid));
      const error = refusal(() => createSqliteChatStore({ filename }));
      expect(isChatError(error, 'dependency_failed')).toBe(true);
      expect((error as Error).message).toContain(`process ${other.pid}`);
      expect(await readFile(`${filename}-owner`, 'utf8')).toBe(String(other.pid));
    } finally {
      other.kill();
    }
  });

  it('takes over the claim of a process that is gone', async () => {
    const filename = nextFile();
    const gone = await runningProcess();
    gone.kill();
    await new Promise((resolve) => gone.once('exit', resolve));
    await writeFile(`${filename}-owner`, String(gone.pid));
    const store = createSqliteChatStore({ filename });
    expect(await readFile(`${filename}-owner`, 'utf8')).toBe(String(process.pid));
    await store.insertRoom(room('1a4f7a52-6e2c-4f7e-9a55-0b1d1d2f3a03'), []);
    await store.close();
  });

  it('takes over a claim holding this process id, left by an earlier process that had it', async () => {
    const filename = nextFile();
    await writeFile(`${filename}-owner`, String(process.pid));
    const store = createSqliteChatStore({ filename });
    await store.close();
    expect(existsSync(`${filename}-owner`)).toBe(false);
  });
});

describe('writes on the writer thread', () => {
  it('a write committed there is seen by the next read here, member lists included', async () => {
    const filename = nextFile();
    const store = createSqliteChatStore({ filename });
    const roomId = '1a4f7a52-6e2c-4f7e-9a55-0b1d1d2f3a10';
    const owner = '2b5e8b63-7f3d-4a8f-8b66-1c2e2e3f4b01';
    const joiner = '2b5e8b63-7f3d-4a8f-8b66-1c2e2e3f4b02';
    await store.insertRoom(room(roomId), [{ userId: owner, owner: true, joinedAt: new Date(1000) }]);
    const listed = await store.listRoomsOfUser(owner, { members: true, settings: false });
    expect(listed[0]?.members?.map((member) => member.userId)).toEqual([owner]);
    await store.insertMember(roomId, { userId: joiner, owner: false, joinedAt: new Date(2000) });
    const relisted = await store.listRoomsOfUser(owner, { members: true, settings: false });
    expect(relisted[0]?.members?.map((member) => member.userId)).toEqual([owner, joiner]);
    await store.close();
  });

  it("passes the writer's ChatErrors on with their code", async () => {
    const filename = nextFile();
    const store = createSqliteChatStore({ filename });
    const roomId = '1a4f7a52-6e2c-4f7e-9a55-0b1d1d2f3a11';
    const member = { userId: '2b5e8b63-7f3d-4a8f-8b66-1c2e2e3f4b03', owner: true, joinedAt: new Date(1000) };
    await store.insertRoom(room(roomId), [member]);
    const error = await store.insertMember(roomId, member).catch((thrown: unknown) => thrown);
    expect(isChatError(error, 'already_member')).toBe(true);
    await store.close();
  });

  it('refuses a write whose arguments cannot reach the thread, and goes on with the next', async () => {
    const store = createSqliteChatStore({ filename: nextFile() });
    const uncopyable = { ...room('1a4f7a52-6e2c-4f7e-9a55-0b1d1d2f3a13'), describe: () => 'a function' };
    await expect(store.insertRoom(uncopyable, [])).rejects.toThrow(/could not be cloned/);
    await store.insertRoom(room('1a4f7a52-6e2c-4f7e-9a55-0b1d1d2f3a14'), []);
    expect(await store.getRoom('1a4f7a52-6e2c-4f7e-9a55-0b1d1d2f3a13')).toBeUndefined();
    expect(await store.getRoom('1a4f7a52-6e2c-4f7e-9a55-0b1d1d2f3a14')).toMatchObject({ name: 'Owned' });
    await store.close();
  });

  it('keeps the process alive only while a write is pending, refused ones included', async () => {
    // A process that writes, has one write refused and never closes the store must still end.
    const script = join(folder, 'exits.mts');
    const storeModule = pathToFileURL(join(packageRoot, 'src/sqlite.ts')).href;
    await writeFile(
      script,
      `import { createSqliteChatStore } from ${JSON.stringify(storeModule)};
const store = createSqliteChatStore({ filename: ${JSON.stringify(nextFile())} });
const room = { id: '1a4f7a52-6e2c-4f7e-9a55-0b1d1d2f3a15', type: 'group', name: 'x', description: '', meetingId: null,
  createdAt: new Date(1), updatedAt: new Date(1), pictureUpdatedAt: null };
await store.insertRoom(room, []);
await store.insertRoom({ ...room, id: '1a4f7a52-6e2c-4f7e-9a55-0b1d1d2f3a16', f: () => 1 }, []).catch(() => {});
console.log('written', (await store.getRoom(room.id))?.name);
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: packageRoot });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      output += String(chunk);
    });
    const timer = setTimeout(() => child.kill(), 15_000);
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.on('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
    );
    clearTimeout(timer);
    expect({ code, signal, output: output.trim() }).toEqual({ code: 0, signal: null, output: 'written x' });
  });

  it('after close, a write fails at once with the reason instead of waiting', async () => {
    const store = createSqliteChatStore({ filename: nextFile() });
    await store.close();
    await expect(store.insertRoom(room('1a4f7a52-6e2c-4f7e-9a55-0b1d1d2f3a12'), [])).rejects.toThrow(
      /SQLite writer thread stopped/,
    );
  });
});
