import { isChatError, type MediaServerEvent } from '@collab-suite/chat-domain';
import { describeMediaServerConformance } from '@collab-suite/chat-domain/testing/vitest';
import { loopbackSfuOptions } from '@collab-suite/webrtc-sfu/testing';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createWorkerMediaServer,
  type WorkerMediaServer,
} from '../../src/meetings/media/worker-media-server.js';
import { mediaTestPeers } from './meeting-test-support.js';

const logger = pino({ level: 'silent' });
const start = () => createWorkerMediaServer({ sfuOptions: loopbackSfuOptions, iceServers: [], logger });

describeMediaServerConformance('SFU in a worker thread', async () => start(), mediaTestPeers);

describe('the media worker thread', () => {
  let media: WorkerMediaServer | undefined;
  afterEach(async () => {
    await media?.close();
    media = undefined;
  });

  it("answers stats() with its SFU's statistics, several callers sharing one request, and undefined once closed", async () => {
    const started = start();
    media = started;
    await started.addParticipant('meeting-a', 'alice');
    await started.addParticipant('meeting-a', 'bob');
    const [first, second] = await Promise.all([started.stats(), started.stats()]);
    expect(first).toMatchObject({ routers: 1, sessions: 2, sessionsOpened: 2, videoPacketsForwarded: 0 });
    expect(second).toEqual(first);
    await started.close();
    expect(await started.stats()).toBeUndefined();
  });

  it('reports the meetings it holds, and says which were lost when its thread dies, then serves again', async () => {
    const started = start();
    media = started;
    const peers = mediaTestPeers();
    const events: MediaServerEvent[] = [];
    started.onEvent((event) => events.push(event));
    await started.addParticipant('meeting-a', 'alice');
    await started.addParticipant('meeting-a', 'bob');
    await started.addParticipant('meeting-b', 'carol');
    await vi.waitFor(() => expect(started.load().participants).toBe(3));
    expect(
      started
        .load()
        .meetings.map((meeting) => meeting.meetingId)
        .sort(),
    ).toEqual(['meeting-a', 'meeting-b']);

    const dead = started.thread;
    const waiting = started.answerAudioOffer('meeting-a', 'alice', await peers.audioOffer());
    await dead.terminate();
    const failure = await waiting.then(
      () => undefined,
      (error: unknown) => error,
    );
    // The answer may have come back before the thread died; if not, the call fails cleanly.
    if (failure !== undefined) expect(isChatError(failure, 'media_failed')).toBe(true);
    await vi.waitFor(() => expect(started.restarts).toBe(1));
    expect(events).toContainEqual({
      type: 'media-lost',
      meetingIds: expect.arrayContaining(['meeting-a', 'meeting-b']),
      reason: 'media_server_failed',
    });
    expect(started.thread).not.toBe(dead);
    expect(started.load().participants).toBe(0);

    await started.addParticipant('meeting-a', 'alice');
    const answer = await started.answerAudioOffer('meeting-a', 'alice', await peers.audioOffer());
    expect(answer).toMatch(/^v=0/);
    await peers.close();
  });

  it('fails calls with media_failed once closed, and closing twice is harmless', async () => {
    const started = start();
    await started.openMeeting('meeting-c');
    await started.close();
    await started.close();
    await expect(started.openMeeting('meeting-c')).rejects.toMatchObject({ code: 'media_failed' });
  });
});
