import { Parser } from '@asyncapi/parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventDescriptions } from '../../src/chat/event-schemas.js';
import { buildEventsAsyncApi } from '../../src/chat/events-asyncapi.js';
import { serverVersion } from '../../src/version.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

type Served = {
  asyncapi: string;
  servers: Record<string, { host: string; protocol: string; pathname?: string }>;
  channels: { events: { address: string; messages: Record<string, unknown> } };
  operations: Record<string, { action: string; messages: { $ref: string }[] }>;
};

/** Errors and warnings of @asyncapi/parser; 2 and 3 (information, hint) only suggest the newer 3.1. */
async function parserProblems(text: string): Promise<string[]> {
  const diagnostics = await new Parser().validate(text);
  return diagnostics
    .filter((diagnostic) => diagnostic.severity <= 1)
    .map((diagnostic) => `${diagnostic.code} at ${diagnostic.path.join('.')}: ${diagnostic.message}`);
}

describe('/asyncapi.json', () => {
  let server: TestServer;
  let text: string;
  let document: Served;
  beforeAll(async () => {
    server = await startTestServer({ env: { PUBLIC_URL: 'https://collab.example.org/suite/' } });
    const response = await fetch(`${server.url}/asyncapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    text = await response.text();
    document = JSON.parse(text) as Served;
  });
  afterAll(() => server.stop());

  it('is a valid AsyncAPI 3.0 document for @asyncapi/parser, without errors or warnings', async () => {
    expect(await parserProblems(text)).toEqual([]);
    expect(document.asyncapi).toBe('3.0.0');
  });

  it('is valid without PUBLIC_URL too, where the server entry has a host variable', async () => {
    const local = buildEventsAsyncApi({ version: serverVersion });
    expect(local.servers.public).toMatchObject({ host: '{host}', protocol: 'ws' });
    expect(await parserProblems(JSON.stringify(local))).toEqual([]);
  });

  it('describes every event type of the chat domain and the protocol frames on the /events channel', () => {
    const eventTypes = Object.keys(eventDescriptions);
    expect(eventTypes.length).toBeGreaterThanOrEqual(29);
    expect(document.channels.events.address).toBe('/events');
    expect(Object.keys(document.channels.events.messages).sort()).toEqual(
      [...eventTypes, 'websocketConnected', 'resync', 'ping', 'pong'].sort(),
    );
    const sent = document.operations.sendEvents?.messages.map((message) => message.$ref.split('/').pop());
    expect(sent).toEqual(eventTypes);
    expect(document.operations.answerPing?.action).toBe('receive');
  });

  it('names the public server from PUBLIC_URL, with wss for https', () => {
    expect(document.servers.public).toMatchObject({
      host: 'collab.example.org',
      protocol: 'wss',
      pathname: '/suite',
    });
  });

  it('is linked from /docs and from the OpenAPI document', async () => {
    const page = await (await fetch(`${server.url}/docs/`)).text();
    expect(page).toContain('href="/asyncapi.json"');
    const openapi = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      externalDocs?: { url: string };
      info: { description: string };
    };
    expect(openapi.externalDocs?.url).toBe('https://collab.example.org/suite/asyncapi.json');
    expect(openapi.info.description).toContain('/asyncapi.json');
  });
});
