import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallOptions, type ChatTestServer, startChatServer, users } from './chat-test-support.js';

/**
 * The reference checks membership before input: someone outside a room learns nothing about the
 * input rules of its routes, only that the room is not theirs.
 */
describe('an outsider with bad input is told 403 first', () => {
  let server: ChatTestServer;
  beforeAll(async () => {
    server = await startChatServer('sqlite');
  });
  afterAll(() => server.stop());

  it('on every room and meeting route that takes input', async () => {
    const { alice, bob, carol, outsider } = users('alice', 'bob', 'carol', 'outsider');
    const owner = server.as(alice);
    const room = (
      await owner('POST', '/rooms', { json: { type: 'group', name: 'Inside', membersIds: [bob, carol] } })
    ).body.id as string;
    const meeting = (await owner('POST', '/meetings', { json: { roomId: room } })).body.id as string;
    await owner('POST', `/meetings/${meeting}/start`);
    const bad = { json: { nonsense: true } };
    const calls: [string, string, CallOptions][] = [
      ['PUT', `/rooms/${room}`, { json: { name: 42 } }],
      ['POST', `/rooms/${room}/members`, bad],
      ['PUT', `/rooms/${room}/members/not-a-uuid/owner`, {}],
      [
        'PUT',
        `/rooms/${room}/picture`,
        { body: 'x', headers: { 'content-type': 'application/octet-stream' } },
      ],
      [
        'POST',
        `/rooms/${room}/attachments`,
        { body: 'x', headers: { 'content-type': 'application/octet-stream' } },
      ],
      ['GET', `/rooms/${room}/attachments?itemsNumber=many`, {}],
      ['POST', `/rooms/${room}/forward`, bad],
      ['POST', `/meetings/${meeting}/join`, bad],
      ['PUT', `/meetings/${meeting}/audio`, bad],
      ['PUT', `/meetings/${meeting}/audio/offer`, bad],
      ['PUT', `/meetings/${meeting}/media`, bad],
      ['PUT', `/meetings/${meeting}/media/subscribe`, bad],
      ['PUT', `/meetings/${meeting}/media/answer`, bad],
    ];
    const answers: string[] = [];
    for (const [method, path, options] of calls) {
      const answer = await server.as(outsider)(method, path, options);
      answers.push(
        `${method} ${path.replace(room, '{room}').replace(meeting, '{meeting}')}: ${answer.status} ${answer.body.code}`,
      );
    }
    expect(answers).toEqual(
      calls.map(
        ([method, path]) =>
          `${method} ${path.replace(room, '{room}').replace(meeting, '{meeting}')}: 403 not_a_member`,
      ),
    );
  });
});
