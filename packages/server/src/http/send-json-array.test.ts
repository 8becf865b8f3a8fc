import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventLoopTicks } from '../../../../test-support/event-loop-ticks.js';
import { answerPlainJson } from './plain-json.js';
import { sendJsonArray } from './send-json-array.js';

/** Room-like items: 2000 rooms of 128 members, about 16 MB of JSON. */
const rooms = Array.from({ length: 2000 }, (_, room) => ({
  id: `room-${room}`,
  name: `Room ${room} «ü»`,
  members: Array.from({ length: 128 }, (_, member) => ({
    userId: `user-${room}-${member}`,
    owner: member === 0,
  })),
  settings: room % 2 === 0 ? { muted: true } : undefined,
}));

describe('sendJsonArray', () => {
  let url = '';
  let close = () => {};
  beforeAll(async () => {
    const app = express();
    answerPlainJson(app);
    app.get('/reference', (_request, response) => {
      response.json(rooms);
    });
    app.get('/sliced', async (_request, response) => {
      await sendJsonArray(response, rooms);
    });
    app.get('/mixed', async (_request, response) => {
      await sendJsonArray(response, [1, 'two', null, undefined, { three: [3] }]);
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterAll(() => close());

  it("answers the bytes, type, length and weak ETag that the server's response.json answers", async () => {
    const [reference, sliced] = await Promise.all([fetch(`${url}/reference`), fetch(`${url}/sliced`)]);
    expect(sliced.status).toBe(200);
    const body = Buffer.from(await sliced.arrayBuffer());
    expect(body.equals(Buffer.from(await reference.arrayBuffer()))).toBe(true);
    for (const header of ['content-type', 'content-length', 'etag']) {
      expect(sliced.headers.get(header)).toBe(reference.headers.get(header));
    }
    expect(sliced.headers.get('content-type')).toBe('application/json');
    expect(sliced.headers.get('etag')).toMatch(/^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/);
    const mixed = await fetch(`${url}/mixed`);
    expect(await mixed.text()).toBe('[1,"two",null,null,{"three":[3]}]');
  });

  it('answers 304 without a body to a matching If-None-Match, and HEAD without a body', async () => {
    const etag = (await fetch(`${url}/sliced`)).headers.get('etag') ?? '';
    // node:http, as fetch adds Cache-Control: no-cache to a conditional request, which disables 304.
    const revalidated = await new Promise<{ status: number | undefined; body: string }>((resolve, reject) => {
      get(`${url}/sliced`, { headers: { 'if-none-match': etag } }, (response) => {
        let body = '';
        response.on('data', (chunk) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode, body }));
      }).on('error', reject);
    });
    expect(revalidated).toEqual({ status: 304, body: '' });
    const head = await fetch(`${url}/sliced`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(etag);
    expect(await head.text()).toBe('');
  });

  it('lets a 1 ms timer fire while it serialises 16 MB', async () => {
    const responseDouble = {
      setHeader: () => responseDouble,
      send: () => responseDouble,
    } as unknown as express.Response;
    // A plain object stands in for the response: only the serialising is measured, not the socket.
    const probe = await eventLoopTicks(() => sendJsonArray(responseDouble, rooms));
    expect(probe.ticks).toBeGreaterThanOrEqual(2);
    expect(probe.longestGapMs).toBeLessThan(probe.durationMs / 2);
  });
});
