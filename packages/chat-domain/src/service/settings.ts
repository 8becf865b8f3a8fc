import type { Actor } from '../model.js';
import type { ServiceContext } from './context.js';

/** Per-user room settings: mute, unmute, clear history. Events go to the caller only. */
export function createSettingsOperations(context: ServiceContext) {
  const { store, clock } = context;

  async function setMuted(actor: Actor, roomId: string, muted: boolean): Promise<void> {
    const { room } = await context.roomAsMember(actor, roomId);
    if (await store.setMuted(room.id, actor.userId, muted)) {
      await context.notify([actor.userId], { type: muted ? 'ROOM_MUTED' : 'ROOM_UNMUTED', roomId: room.id });
    }
  }

  async function clearHistory(actor: Actor, roomId: string): Promise<{ clearedAt: string }> {
    const { room } = await context.roomAsMember(actor, roomId);
    const clearedAt = clock.now();
    await store.setClearedAt(room.id, actor.userId, clearedAt);
    await context.notify([actor.userId], {
      type: 'ROOM_HISTORY_CLEARED',
      roomId: room.id,
      clearedAt: clearedAt.toISOString(),
    });
    return { clearedAt: clearedAt.toISOString() };
  }

  return {
    muteRoom: (actor: Actor, roomId: string) => setMuted(actor, roomId, true),
    unmuteRoom: (actor: Actor, roomId: string) => setMuted(actor, roomId, false),
    clearHistory,
  };
}
