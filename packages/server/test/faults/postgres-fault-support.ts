import { randomUUID } from 'node:crypto';
import { type PrivatePostgres, startPrivatePostgres } from '@collab-suite/chat-domain/testing';
import pg from 'pg';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { type ApiResponse, type ChatClient, chatClientFor } from '../chat/chat-test-support.js';
import type { ClusterNode } from '../cluster/cluster-nodes.js';
import { testJwtSecret } from '../support/test-server.js';

/** A private PostgreSQL with a chat and a SAML database of its own. */
export interface FaultPostgres {
  server: PrivatePostgres;
  chatUrl: string;
  samlUrl: string;
}

/** Starts a private PostgreSQL (never the shared one: the tests stop and kill it) with two databases. */
export async function startFaultPostgres(): Promise<FaultPostgres> {
  const server = await startPrivatePostgres();
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    await admin.query('CREATE DATABASE chat_faults');
    await admin.query('CREATE DATABASE saml_faults');
  } finally {
    await admin.end();
  }
  const databaseUrl = (name: string) => {
    const url = new URL(server.url);
    url.pathname = `/${name}`;
    return url.toString();
  };
  return { server, chatUrl: databaseUrl('chat_faults'), samlUrl: databaseUrl('saml_faults') };
}

/** Whether the node's process still runs. */
export function isAlive(node: ClusterNode): boolean {
  return node.process.exitCode === null && node.process.signalCode === null;
}

/** Calls of the chat API on `node` as a user. */
export function chatAs(node: ClusterNode, userId: string): ChatClient {
  return chatClientFor(node.url, (user) => signLocalToken(testJwtSecret, { userId: user }))(userId);
}

/** Calls of the SAML configuration API on `node` as an administrator. */
export async function samlCall(
  node: ClusterNode,
  method: string,
  domain: string,
  json?: unknown,
): Promise<ApiResponse> {
  const token = await signLocalToken(testJwtSecret, {
    userId: '00000000-0000-4000-8000-000000000001',
    admin: true,
  });
  const response = await fetch(`${node.url}/admin/auth/saml/${domain}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const isJson = response.headers.get('content-type')?.includes('application/json');
  return {
    status: response.status,
    headers: response.headers,
    bytes,
    body: isJson ? JSON.parse(bytes.toString()) : bytes.toString(),
  };
}

/**
 * Every room creation tried by a test, and the ids of those answered 201: what must be found after
 * the fault. Any answer but 201 or 503 `dependency_unavailable` with Retry-After is kept as wrong.
 */
export class RoomWrites {
  /** The two other members every group room needs. */
  private readonly members = [randomUUID(), randomUUID()];
  readonly acknowledged: string[] = [];
  readonly unavailable: ApiResponse[] = [];
  readonly wrong: { status: number; body: unknown; retryAfter: string | null }[] = [];

  /** Creates one group room as `client`; resolves with the answer. */
  async create(client: ChatClient, name: string): Promise<ApiResponse> {
    const response = await client('POST', '/rooms', {
      json: { type: 'group', name, membersIds: this.members },
    });
    if (response.status === 201) this.acknowledged.push(String(response.body.id));
    else if (isUnavailableAnswer(response)) this.unavailable.push(response);
    else
      this.wrong.push({
        status: response.status,
        body: response.body,
        retryAfter: response.headers.get('retry-after'),
      });
    return response;
  }

  /**
   * Creates rooms one after the other, alternating `clients`, until `stop()` is called; pacing
   * leaves the machine to the servers and PostgreSQL.
   */
  keepCreating(clients: ChatClient[]): { stop(): Promise<void> } {
    let running = true;
    const loop = (async () => {
      for (let index = 0; running; index += 1) {
        const client = clients[index % clients.length] as ChatClient;
        await this.create(client, `Write ${index}`).catch((error: unknown) => {
          this.wrong.push({ status: 0, body: String(error), retryAfter: null });
        });
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    return {
      async stop() {
        running = false;
        await loop;
      },
    };
  }
}

/** Whether `response` is the chat or SAML answer for PostgreSQL away: 503 `dependency_unavailable`, Retry-After. */
export function isUnavailableAnswer(response: ApiResponse): boolean {
  const retryAfter = Number(response.headers.get('retry-after'));
  return (
    response.status === 503 &&
    response.body?.code === 'dependency_unavailable' &&
    Number.isInteger(retryAfter) &&
    retryAfter >= 1
  );
}

/** Polls `check` until it resolves true (up to `timeoutMs`, for a loaded machine). */
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Calls until the answer is the outage answer ({@link isUnavailableAnswer}) and resolves with it:
 * backends of a killed server may still answer on pooled connections until they notice.
 */
export async function untilUnavailable(call: () => Promise<ApiResponse>, what: string): Promise<ApiResponse> {
  let last: ApiResponse | undefined;
  await until(async () => {
    last = await call();
    return isUnavailableAnswer(last);
  }, `${what} to answer 503 dependency_unavailable`);
  return last as ApiResponse;
}
