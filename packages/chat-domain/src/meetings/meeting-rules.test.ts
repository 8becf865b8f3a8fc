import { describe, expect, it } from 'vitest';
import type { MeetingRecord, ParticipantRecord } from './meeting-model.js';
import { audioTarget, isExpired, planJoin } from './meeting-rules.js';

const meeting: MeetingRecord = {
  id: 'm',
  roomId: 'r',
  name: 'n',
  meetingType: 'scheduled',
  expiration: new Date(1000),
  active: true,
  startedAt: new Date(0),
  createdAt: new Date(0),
};
const participant: ParticipantRecord = {
  userId: 'u',
  queueId: 'q1',
  audioStreamEnabled: true,
  videoStreamEnabled: false,
  screenStreamEnabled: false,
  joinedAt: new Date(0),
};

describe('planJoin', () => {
  it('checks activity, then the queue, then room in the meeting', () => {
    expect(() => planJoin({ ...meeting, active: false }, undefined, 'q', 0, 1)).toThrow(/not started/);
    expect(() => planJoin(meeting, participant, 'q1', 1, 1)).toThrow(/once per queue/);
    expect(planJoin(meeting, participant, 'q2', 1, 1)).toEqual({ kind: 'clash', previous: participant });
    expect(() => planJoin(meeting, undefined, 'q', 1, 1)).toThrow(/at most 1 participants/);
    expect(planJoin(meeting, undefined, 'q', 0, 1)).toEqual({ kind: 'new' });
  });
});

describe('audioTarget', () => {
  it('lets anyone switch themselves and only owners mute others', () => {
    const owner = { userId: 'o', owner: true, joinedAt: new Date(0) };
    const member = { userId: 'm', owner: false, joinedAt: new Date(0) };
    expect(audioTarget(member, { enabled: true })).toEqual({ userId: 'm' });
    expect(audioTarget(member, { enabled: true, userToModerate: 'm' })).toEqual({ userId: 'm' });
    expect(audioTarget(owner, { enabled: false, userToModerate: 'x' })).toEqual({
      userId: 'x',
      moderatorId: 'o',
    });
    expect(() => audioTarget(member, { enabled: false, userToModerate: 'x' })).toThrow(/room owner/);
    expect(() => audioTarget(owner, { enabled: true, userToModerate: 'x' })).toThrow(/never unmute/);
  });
});

describe('isExpired', () => {
  it('is true for scheduled meetings at or past their expiration only', () => {
    expect(isExpired(meeting, new Date(999))).toBe(false);
    expect(isExpired(meeting, new Date(1000))).toBe(true);
    expect(isExpired({ ...meeting, meetingType: 'permanent' }, new Date(5000))).toBe(false);
    expect(isExpired({ ...meeting, expiration: null }, new Date(5000))).toBe(false);
  });
});
