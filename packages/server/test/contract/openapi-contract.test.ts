import { randomInt } from 'node:crypto';
import { makePdf, solidImage } from '@collab-suite/preview-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import {
  type DocumentedOperation,
  documentedOperations,
  type OpenApiDocument,
} from '../support/contract/openapi-operations.js';
import { type ContractRequest, createRequestGenerator } from '../support/contract/request-generator.js';
import {
  answerProblems,
  type ContractAnswer,
  send,
  validationRefusal,
} from '../support/contract/response-checker.js';
import { createSchemaChecker } from '../support/contract/schema-checker.js';
import { startTestServer, type TestServer, testJwtSecret } from '../support/test-server.js';

// Replay a run with CONTRACT_SEED=<the seed it printed>; CONTRACT_BUDGET_MS bounds the generated part.
// A developer's run draws a new seed each time to find new disagreements; CI (CI=true) keeps one
// seed so that a disagreement found by chance does not block an unrelated change: it is found, and
// fixed, on a developer's machine.
const ciSeed = 20261127;
const seed = Number(process.env.CONTRACT_SEED ?? (process.env.CI ? ciSeed : randomInt(2 ** 31)));
const budgetMs = Number(process.env.CONTRACT_BUDGET_MS ?? 25_000);
/** Generated valid and invalid requests per operation and round; rounds go on while the budget lasts. */
const ROUNDS = 6;

/**
 * Things for the operations to find, made through the API: a group room of the caller with two
 * other members, an attachment in it, its meeting, and a SAML domain with a certificate.
 */
async function createExisting(baseUrl: string, authorization: string): Promise<Record<string, string>> {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization,
        ...(typeof body === 'string' ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    if (!response.ok)
      throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return (response.status === 204 ? {} : await response.json()) as Record<string, string>;
  };
  const member = '00000000-0000-4000-8000-0000000000a1';
  const room = await call('POST', '/rooms', {
    type: 'group',
    name: 'contract',
    membersIds: [member, '00000000-0000-4000-8000-0000000000a2'],
  });
  const roomId = String(room.id);
  const attachment = await call('POST', `/rooms/${roomId}/attachments`, 'hello', {
    'content-type': 'application/octet-stream',
    fileName: 'hello.txt',
    mimeType: 'text/plain',
  });
  const meeting = await call('POST', '/meetings', { roomId });
  await call('POST', '/admin/auth/saml-generate/example.org');
  return {
    roomId,
    userId: member,
    attachmentId: String(attachment.id),
    meetingId: String(meeting.id),
    domain: 'example.org',
  };
}

/** The operations driven, their requests and what did not match the document. */
interface Findings {
  requests: number;
  operations: Set<string>;
  problems: string[];
}

describe('the OpenAPI document says what the server accepts and answers', () => {
  let server: TestServer;
  let document: OpenApiDocument;
  let authorization: string;
  let existing: Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer({
      env: {
        DOCUMENT_CONVERT_ENDPOINT: 'true',
        // Generated room creations come fast; the creation limit has a test of its own.
        CHAT_ROOM_CREATIONS_PER_MINUTE: '100000',
      },
    });
    document = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDocument;
    const userId = '00000000-0000-4000-8000-00000000c0de';
    authorization = `Bearer ${await signLocalToken(testJwtSecret, { userId, admin: true })}`;
    existing = await createExisting(server.url, authorization);
  });
  afterAll(() => server?.stop());

  it('answers documented examples and generated valid and invalid requests of every operation as documented', async () => {
    console.log(`openapi contract: seed ${seed} (replay with CONTRACT_SEED=${seed})`);
    const checker = createSchemaChecker();
    const files = { image: await solidImage(120, 90, [200, 40, 40]), pdf: await makePdf(2) };
    const generator = createRequestGenerator({ document, checker, seed, files, existing });
    const operations = documentedOperations(document);
    const findings: Findings = { requests: 0, operations: new Set(), problems: [] };
    const examplesStarted = Date.now();

    const drive = async (operation: DocumentedOperation, request: ContractRequest) => {
      const name = `${operation.method.toUpperCase()} ${operation.path}`;
      const what = `${name} [${request.kind}${request.breaks ? `: ${request.breaks}` : ''}] ${request.method.toUpperCase()} ${request.path}${request.query.length ? `?${new URLSearchParams(request.query)}` : ''}`;
      let answer: ContractAnswer;
      const sent = Date.now();
      try {
        answer = await send(server.url, request, authorization);
        if (process.env.CONTRACT_VERBOSE) console.log(`${Date.now() - sent} ms ${answer.status} ${what}`);
      } catch (error) {
        findings.problems.push(`${what}: no answer (${(error as Error).message})`);
        return;
      }
      findings.requests += 1;
      findings.operations.add(name);
      const report = (problem: string) => findings.problems.push(`${what} → ${answer.status}: ${problem}`);
      if (answer.status >= 500)
        report(`a ${answer.status} ${Buffer.from(answer.bytes).toString().slice(0, 200)}`);
      for (const problem of answerProblems(document, checker, operation, answer, operation.method))
        report(problem);
      if (request.kind === 'invalid' && answer.status < 400)
        report('the document says this is invalid, the server accepted it');
      if (request.kind !== 'invalid') {
        const refusal = validationRefusal(answer);
        if (refusal !== undefined) report(`valid by the document, refused: ${refusal}`);
      }
      // Every GET is also answered to HEAD, with no body (the HEAD operation's, or the GET's, statuses).
      if (operation.method === 'get' && request.kind !== 'invalid') {
        const head = await send(server.url, request, authorization, 'head');
        findings.requests += 1;
        const headOperation = document.paths[operation.path]?.head;
        const described = headOperation ? { ...operation, operation: headOperation } : operation;
        for (const problem of answerProblems(document, checker, described, head, 'head'))
          findings.problems.push(`${what} as HEAD → ${head.status}: ${problem}`);
      }
    };

    // Documented examples (defaults where there is no example) of every operation, once.
    for (const operation of operations) {
      const request = generator.validRequest(operation, true);
      if (request) await drive(operation, request);
    }
    // Generated valid and invalid requests, round after round, while the time budget lasts (the
    // examples are not counted: the first PDF request starts the PDF workers, which takes a while).
    const started = Date.now();
    for (let round = 0; round < ROUNDS && Date.now() - started < budgetMs; round += 1) {
      for (const operation of operations) {
        if (Date.now() - started >= budgetMs) break;
        const valid = generator.validRequest(operation, false);
        if (valid) await drive(operation, valid);
        const invalid = generator.invalidRequest(operation);
        if (invalid) await drive(operation, invalid);
      }
    }
    const seconds = ((Date.now() - examplesStarted) / 1000).toFixed(1);
    console.log(
      `openapi contract: ${findings.operations.size} of ${operations.length} operations, ${findings.requests} requests in ${seconds} s (seed ${seed})`,
    );
    expect(findings.operations.size).toBe(operations.length);
    expect(findings.problems, `seed ${seed}`).toEqual([]);
  }, 180_000);
});
