import { describe, expect, it } from 'vitest';
import type { EventDelivery } from '../events.js';
import { EventBacklog } from './event-backlog.js';

const delivery = (userId: string, roomId: string): EventDelivery => ({
  userId,
  event: { type: 'ROOM_DELETED', roomId, sentDate: '2024-01-01T00:00:00.000Z' },
});

describe('EventBacklog', () => {
  it('keeps deliveries in order and hands them over oldest first', () => {
    const backlog = new EventBacklog({ maxEvents: 10, maxAgeMs: 1000 });
    backlog.push([delivery('a', '1'), delivery('b', '2')]);
    backlog.push([delivery('a', '3')]);
    expect(backlog.take(2).deliveries).toEqual([delivery('a', '1'), delivery('b', '2')]);
    expect(backlog.take(5).deliveries).toEqual([delivery('a', '3')]);
    expect(backlog.hasLostUsers).toBe(false);
  });

  it('drops the oldest past maxEvents and remembers their users', () => {
    const backlog = new EventBacklog({ maxEvents: 2, maxAgeMs: 1000 });
    backlog.push([delivery('a', '1'), delivery('b', '2'), delivery('c', '3')]);
    expect(backlog.takeLostUsers()).toEqual({ userIds: ['a'], everyone: false });
    expect(backlog.take(5).deliveries).toEqual([delivery('b', '2'), delivery('c', '3')]);
    expect(backlog.hasLostUsers).toBe(false);
  });

  it('drops deliveries older than maxAgeMs', () => {
    let now = 0;
    const backlog = new EventBacklog({ maxEvents: 10, maxAgeMs: 1000 }, () => now);
    backlog.push([delivery('a', '1')]);
    now = 600;
    backlog.push([delivery('b', '2')]);
    now = 1500;
    backlog.expire();
    expect(backlog.take(5).deliveries).toEqual([delivery('b', '2')]);
    expect(backlog.takeLostUsers().userIds).toEqual(['a']);
  });

  it('puts back what was not handed over before what came meanwhile, within the bound', () => {
    const backlog = new EventBacklog({ maxEvents: 3, maxAgeMs: 1000 });
    backlog.push([delivery('a', '1'), delivery('b', '2')]);
    const taken = backlog.take(2);
    backlog.push([delivery('c', '3'), delivery('d', '4')]);
    expect(backlog.hasLostUsers).toBe(false);
    backlog.putBack(taken, 0);
    expect(backlog.takeLostUsers().userIds).toEqual(['a']);
    expect(backlog.take(5).deliveries).toEqual([delivery('b', '2'), delivery('c', '3'), delivery('d', '4')]);
  });

  it('asks everyone to resync when more users lost events than it keeps events', () => {
    const backlog = new EventBacklog({ maxEvents: 1, maxAgeMs: 1000 });
    backlog.push([delivery('a', '1'), delivery('b', '2'), delivery('c', '3')]);
    const lost = backlog.takeLostUsers();
    expect(lost).toEqual({ userIds: [], everyone: true });
    backlog.restoreLostUsers(lost);
    expect(backlog.takeLostUsers().everyone).toBe(true);
  });
});
