// Shared by the PostgreSQL full-disk tests of chat-domain and the server: plain JavaScript with a
// declaration file beside it, like small-disk.js. The pg client class is handed in, as this folder
// has no node_modules of its own.
import { execFileSync } from 'node:child_process';
import { chownSync } from 'node:fs';

/**
 * Makes a database `name` on the PostgreSQL server at `serverUrl` whose tables live in a tablespace
 * on `directory` (a small disk from mountSmallDisk, handed to the `postgres` user). A new database is
 * a copy of template1, about 8 MiB; the WAL stays on the server's own disk, so on a full `directory`
 * PostgreSQL keeps running and refuses only what needs a new block (SQLSTATE 53100).
 *
 * @param {{ directory: string, serverUrl: string, Client: import('./postgres-small-disk.js').PgClientClass, name?: string }} options
 * @returns {Promise<string>} the URL of the new database
 */
export async function databaseOnSmallDisk({ directory, serverUrl, Client, name = 'collab_full' }) {
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  chownSync(directory, uid, gid);
  const tablespace = `${name}_space`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE TABLESPACE ${tablespace} LOCATION '${directory}'`);
    await admin.query(`CREATE DATABASE ${name} TABLESPACE ${tablespace}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
