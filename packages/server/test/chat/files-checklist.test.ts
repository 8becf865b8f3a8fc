import { randomUUID } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { createManualClock } from '@collab-suite/chat-domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChatTestServer,
  chatDatabases,
  onePixelPng,
  startChatServer,
  unicodeEscape,
  users,
} from './chat-test-support.js';

const pictureHeaders = {
  fileName: 'team.png',
  mimeType: 'image/png',
  'content-type': 'application/octet-stream',
};

describe.each(chatDatabases)(
  'pictures, attachments and forwards checklist (reference §14) on %s',
  (database) => {
    let server: ChatTestServer;
    const clock = createManualClock(new Date('2024-04-01T08:00:00.000Z'));
    beforeAll(async () => {
      server = await startChatServer(database, {
        overrides: { clock },
        env: { CHAT_MAX_ATTACHMENT_BYTES: '4096' },
      });
    });
    afterAll(async () => {
      await server?.stop();
    });
    const group = async (owner: string, others: string[], type = 'group') =>
      (await server.as(owner)('POST', '/rooms', { json: { type, name: 'Team', membersIds: others } }))
        .body as { id: string };
    const upload = (
      userId: string,
      roomId: string,
      body: string | Uint8Array,
      headers: Record<string, string> = {},
    ) =>
      server.as(userId)('POST', `/rooms/${roomId}/attachments`, {
        body,
        headers: {
          fileName: 'notes.txt',
          mimeType: 'text/plain',
          'content-type': 'application/octet-stream',
          ...headers,
        },
      });
    const removeBlobFiles = async (folder: string) => {
      const directory = path.join(server.config.chat.blobDirectory, folder);
      for (const name of await readdir(directory)) await rm(path.join(directory, name), { recursive: true });
    };

    describe('room picture', () => {
      it('sets (204), serves (200) and deletes (204) a group picture', async () => {
        const { a, b, c } = users('a', 'b', 'c');
        const room = await group(a, [b, c]);
        const headers = { ...pictureHeaders, fileName: unicodeEscape('équipe.png') };
        const set = await server.as(a)('PUT', `/rooms/${room.id}/picture`, { body: onePixelPng, headers });
        expect(set).toMatchObject({ status: 204, body: '' });
        expect((await server.as(b)('GET', `/rooms/${room.id}`)).body.pictureUpdatedAt).toBe(
          clock.now().toISOString(),
        );
        const got = await server.as(c)('GET', `/rooms/${room.id}/picture`);
        expect(got.status).toBe(200);
        expect(got.headers.get('content-type')).toBe('image/png');
        expect(got.headers.get('content-length')).toBe(String(onePixelPng.length));
        expect(got.headers.get('content-disposition')).toBe(
          `inline; filename="_quipe.png"; filename*=UTF-8''%C3%A9quipe.png`,
        );
        expect(got.bytes.equals(onePixelPng)).toBe(true);
        expect((await server.as(a)('DELETE', `/rooms/${room.id}/picture`)).status).toBe(204);
        expect((await server.as(a)('GET', `/rooms/${room.id}/picture`)).status).toBe(404);
        expect((await server.as(a)('GET', `/rooms/${room.id}`)).body).not.toHaveProperty('pictureUpdatedAt');
      });

      it('answers 400 for missing headers, non-group rooms, too large and non-image pictures', async () => {
        const { a, b, c } = users('a', 'b', 'c');
        const room = await group(a, [b, c]);
        const temporary = await group(a, [b], 'temporary');
        const put = (roomId: string, body: Uint8Array | string, headers: Record<string, string>) =>
          server.as(a)('PUT', `/rooms/${roomId}/picture`, { body, headers });
        expect((await put(room.id, onePixelPng, { mimeType: 'image/png' })).status).toBe(400);
        expect((await put(room.id, onePixelPng, { fileName: 'a.png' })).status).toBe(400);
        expect((await put(temporary.id, onePixelPng, pictureHeaders)).status).toBe(400);
        expect(await put(room.id, Buffer.alloc(512 * 1024 + 1), pictureHeaders)).toMatchObject({
          status: 400,
          body: { code: 'picture_too_large' },
        });
        expect((await put(room.id, onePixelPng, { ...pictureHeaders, mimeType: 'text/plain' })).status).toBe(
          400,
        );
        expect(await put(room.id, 'not an image at all', pictureHeaders)).toMatchObject({
          status: 400,
          body: { code: 'invalid_picture' },
        });
        expect((await server.as(a)('GET', `/rooms/${room.id}/picture`)).status).toBe(404);
      });

      it('answers 403 to outsiders and non-owners, 404 without a picture, 424 when the bytes are gone', async () => {
        const { a, b, c, outsider } = users('a', 'b', 'c', 'outsider');
        const room = await group(a, [b, c]);
        expect((await server.as(a)('DELETE', `/rooms/${room.id}/picture`)).status).toBe(404);
        expect(
          (
            await server.as(outsider)('PUT', `/rooms/${room.id}/picture`, {
              body: onePixelPng,
              headers: pictureHeaders,
            })
          ).status,
        ).toBe(403);
        expect(
          (
            await server.as(b)('PUT', `/rooms/${room.id}/picture`, {
              body: onePixelPng,
              headers: pictureHeaders,
            })
          ).status,
        ).toBe(403);
        await server.as(a)('PUT', `/rooms/${room.id}/picture`, {
          body: onePixelPng,
          headers: pictureHeaders,
        });
        expect((await server.as(outsider)('GET', `/rooms/${room.id}/picture`)).status).toBe(403);
        expect((await server.as(b)('DELETE', `/rooms/${room.id}/picture`)).status).toBe(403);
        await removeBlobFiles(`pictures/${room.id}`);
        expect(await server.as(b)('GET', `/rooms/${room.id}/picture`)).toMatchObject({
          status: 424,
          body: { code: 'blob_missing' },
        });
      });
    });

    describe('attachments in a room', () => {
      it('uploads plain, with description, with reply and with area (201)', async () => {
        const { a, b, c } = users('a', 'b', 'c');
        const room = await group(a, [b, c]);
        const plain = await upload(b, room.id, 'hello');
        expect(plain).toMatchObject({ status: 201, body: { id: expect.any(String) } });
        expect((await upload(b, room.id, 'x', { description: unicodeEscape('voilà') })).status).toBe(201);
        expect((await upload(b, room.id, 'x', { replyId: 'message-1', messageId: 'message-2' })).status).toBe(
          201,
        );
        const withArea = await upload(b, room.id, 'x', {
          area: '15x20',
          fileName: unicodeEscape('café.txt'),
        });
        expect(withArea.status).toBe(201);
        const metadata = await server.as(c)('GET', `/attachments/${withArea.body.id}`);
        expect(metadata.body).toEqual({
          id: withArea.body.id,
          name: 'café.txt',
          size: 1,
          mimeType: 'text/plain',
          userId: b,
          roomId: room.id,
          createdAt: clock.now().toISOString(),
          area: '15x20',
        });
      });

      it('answers 400 for a bad area, 403 to outsiders and 413 past the limit without storing', async () => {
        const { a, b, c, outsider } = users('a', 'b', 'c', 'outsider');
        const room = await group(a, [b, c]);
        expect(await upload(b, room.id, 'x', { area: 'wrong_format' })).toMatchObject({
          status: 400,
          body: { code: 'invalid_input' },
        });
        expect((await upload(b, room.id, 'x', { area: '15X20' })).status).toBe(400);
        expect((await upload(outsider, room.id, 'x')).status).toBe(403);
        expect(await upload(b, room.id, Buffer.alloc(5000))).toMatchObject({
          status: 413,
          body: { code: 'payload_too_large' },
        });
        expect((await server.as(a)('GET', `/rooms/${room.id}/attachments`)).body).toEqual({
          attachments: [],
        });
      });

      it('lists newest first with ties broken by id, and pages with filter', async () => {
        const { a, b, c, outsider } = users('a', 'b', 'c', 'outsider');
        const room = await group(a, [b, c]);
        const ids: string[] = [];
        for (const step of [0, 0, 0, 1]) {
          clock.advance(step * 1000);
          ids.push((await upload(a, room.id, 'x')).body.id);
        }
        const [t1, t2, t3, newest] = ids as [string, string, string, string];
        const expected = [newest, ...[t1, t2, t3].sort().reverse()];
        const all = await server.as(b)('GET', `/rooms/${room.id}/attachments`);
        expect(all.status).toBe(200);
        expect(all.body.attachments.map((attachment: { id: string }) => attachment.id)).toEqual(expected);
        expect(all.body).not.toHaveProperty('filter');
        const first = await server.as(b)('GET', `/rooms/${room.id}/attachments?itemsNumber=3`);
        expect(first.body.attachments.map((attachment: { id: string }) => attachment.id)).toEqual(
          expected.slice(0, 3),
        );
        const second = await server.as(b)(
          'GET',
          `/rooms/${room.id}/attachments?itemsNumber=3&filter=${encodeURIComponent(first.body.filter)}`,
        );
        expect(second.body).toEqual({ attachments: [expect.objectContaining({ id: expected[3] })] });
        expect((await server.as(outsider)('GET', `/rooms/${room.id}/attachments`)).status).toBe(403);
        expect((await server.as(b)('GET', `/rooms/${room.id}/attachments?filter=garbage`)).status).toBe(400);
        expect((await server.as(b)('GET', `/rooms/${room.id}/attachments?itemsNumber=0`)).status).toBe(400);
        expect((await server.as(b)('GET', `/rooms/${room.id}/attachments?itemsNumber=101`)).status).toBe(400);
      });
    });

    describe('POST /rooms/{id}/forward', () => {
      const stanza = (attachmentId: string) =>
        `<message xmlns='jabber:client' type='groupchat'><x xmlns='urn:xmpp:muclight:0#configuration'>` +
        `<operation>attachmentAdded</operation><attachment-id>${attachmentId}</attachment-id></x><body>see</body></message>`;

      it('forwards text, multi-line, special characters and attachments (204), copying the file', async () => {
        const { a, b, c } = users('a', 'b', 'c');
        const source = await group(a, [b, c]);
        const target = await group(b, [a, c]);
        const texts = [
          'hello',
          'line one\nline two',
          `<message><body>&lt;b&gt; "quotes" &amp; 'ü'</body></message>`,
        ];
        for (const originalMessage of texts) {
          const response = await server.as(b)('POST', `/rooms/${target.id}/forward`, {
            json: [{ originalMessage, originalMessageSentAt: '2024-01-01T10:00:00Z', description: 'fwd' }],
          });
          expect(response).toMatchObject({ status: 204, body: '' });
        }
        const uploaded = await upload(a, source.id, 'forward me');
        expect(
          (
            await server.as(b)('POST', `/rooms/${target.id}/forward`, {
              json: [{ originalMessage: stanza(uploaded.body.id) }],
            })
          ).status,
        ).toBe(204);
        const copies = (await server.as(c)('GET', `/rooms/${target.id}/attachments`)).body.attachments;
        expect(copies).toEqual([
          expect.objectContaining({ name: 'notes.txt', size: 10, userId: b, roomId: target.id }),
        ]);
        expect(copies[0].id).not.toBe(uploaded.body.id);
        expect((await server.as(c)('GET', `/attachments/${copies[0].id}/download`)).body).toBe('forward me');
      });

      it('answers 403 outside the source or destination room, 404 for a missing attachment, 400 for bad XML', async () => {
        const { a, b, c, d } = users('a', 'b', 'c', 'd');
        const source = await group(a, [b, c]);
        const target = await group(d, [b, c]);
        const uploaded = await upload(a, source.id, 'secret');
        const forward = (userId: string, roomId: string, originalMessage: string) =>
          server.as(userId)('POST', `/rooms/${roomId}/forward`, { json: [{ originalMessage }] });
        expect((await forward(d, target.id, stanza(uploaded.body.id))).status).toBe(403);
        expect((await forward(b, target.id, stanza(randomUUID()))).status).toBe(404);
        expect((await forward(a, target.id, 'hello')).status).toBe(403);
        expect((await forward(b, target.id, '<message><body>unclosed</message>')).status).toBe(400);
        expect((await server.as(b)('GET', `/rooms/${target.id}/attachments`)).body.attachments).toEqual([]);
      });
    });

    describe('attachments by id', () => {
      it('downloads any type with its headers (200)', async () => {
        const { a, b, c } = users('a', 'b', 'c');
        const room = await group(a, [b, c]);
        const types = [
          'image/png',
          'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          'application/octet-stream',
        ];
        for (const mimeType of types) {
          const { body } = await upload(a, room.id, onePixelPng, { mimeType, fileName: 'file.bin' });
          const response = await server.as(b)('GET', `/attachments/${body.id}/download`);
          expect(response.status).toBe(200);
          expect(response.headers.get('content-type')).toBe(mimeType);
          expect(response.headers.get('content-length')).toBe(String(onePixelPng.length));
          expect(response.headers.get('content-disposition')).toContain('inline; filename="file.bin"');
          expect(response.headers.get('x-content-type-options')).toBe('nosniff');
          expect(response.bytes.equals(onePixelPng)).toBe(true);
        }
      });

      it('answers 403 to outsiders, 404 for unknown and non-UUID ids, 424 when the bytes are gone', async () => {
        const { a, b, c, outsider } = users('a', 'b', 'c', 'outsider');
        const room = await group(a, [b, c]);
        const { body } = await upload(a, room.id, 'x');
        for (const suffix of ['', '/download']) {
          expect((await server.as(outsider)('GET', `/attachments/${body.id}${suffix}`)).status).toBe(403);
          expect((await server.as(a)('GET', `/attachments/${randomUUID()}${suffix}`)).status).toBe(404);
          expect((await server.as(a)('GET', `/attachments/not-a-uuid${suffix}`)).status).toBe(404);
        }
        expect((await server.as(b)('GET', `/attachments/${body.id}`)).status).toBe(200);
        await rm(path.join(server.config.chat.blobDirectory, 'attachments', body.id));
        expect((await server.as(b)('GET', `/attachments/${body.id}/download`)).status).toBe(424);
      });

      it('lets the uploader or an owner delete (204), nobody else (403)', async () => {
        const { a, b, c, outsider } = users('a', 'b', 'c', 'outsider');
        const room = await group(a, [b, c]);
        const byB = (await upload(b, room.id, 'b')).body.id;
        const byC = (await upload(c, room.id, 'c')).body.id;
        expect((await server.as(outsider)('DELETE', `/attachments/${byB}`)).status).toBe(403);
        expect((await server.as(c)('DELETE', `/attachments/${byB}`)).status).toBe(403);
        expect((await server.as(b)('DELETE', `/attachments/${byB}`)).status).toBe(204);
        expect((await server.as(a)('DELETE', `/attachments/${byC}`)).status).toBe(204);
        expect((await server.as(a)('GET', `/attachments/${byC}`)).status).toBe(404);
        expect((await server.as(a)('DELETE', `/attachments/${byC}`)).status).toBe(404);
        expect((await server.as(a)('DELETE', '/attachments/not-a-uuid')).status).toBe(404);
        expect(await readdir(path.join(server.config.chat.blobDirectory, 'attachments'))).not.toContain(byB);
      });

      it('deleting a room removes its picture and attachment bytes', async () => {
        const { a, b, c } = users('a', 'b', 'c');
        const room = await group(a, [b, c]);
        const { body } = await upload(b, room.id, 'gone soon');
        await server.as(a)('PUT', `/rooms/${room.id}/picture`, {
          body: onePixelPng,
          headers: pictureHeaders,
        });
        expect((await server.as(a)('DELETE', `/rooms/${room.id}`)).status).toBe(204);
        expect((await server.as(b)('GET', `/attachments/${body.id}`)).status).toBe(404);
        expect(await readdir(path.join(server.config.chat.blobDirectory, 'attachments'))).not.toContain(
          body.id,
        );
        expect(await readdir(path.join(server.config.chat.blobDirectory, 'pictures', room.id))).toEqual([]);
      });
    });
  },
);
