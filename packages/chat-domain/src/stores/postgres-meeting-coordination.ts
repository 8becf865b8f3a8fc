import type { PoolClient } from 'pg';
import { ChatError } from '../errors.js';
import type { MeetingCoordination } from '../ports/meeting-coordination.js';
import type { PostgresContext } from './postgres-file-queries.js';

/** The {@link MeetingCoordination} of the PostgreSQL store: columns `media_node_id` and `fence` of `chat_meetings`. */
export function createPostgresMeetingCoordination({ rows }: PostgresContext): MeetingCoordination {
  return {
    async meetingMediaNode(meetingId) {
      const [row] = await rows<{ media_node_id: string | null }>(
        'SELECT media_node_id FROM chat_meetings WHERE id = $1',
        [meetingId],
      );
      return row?.media_node_id ?? undefined;
    },
    async placeMeetingMedia(meetingId, nodeId, expected) {
      const [placed] = await rows<{ media_node_id: string }>(
        `UPDATE chat_meetings SET media_node_id = $2
         WHERE id = $1 AND media_node_id IS NOT DISTINCT FROM $3 RETURNING media_node_id`,
        [meetingId, nodeId, expected],
      );
      if (placed !== undefined) return placed.media_node_id;
      const [current] = await rows<{ media_node_id: string | null }>(
        'SELECT media_node_id FROM chat_meetings WHERE id = $1',
        [meetingId],
      );
      return current?.media_node_id ?? undefined;
    },
    async forgetMeetingMedia(meetingId, nodeId) {
      await rows('UPDATE chat_meetings SET media_node_id = NULL WHERE id = $1 AND media_node_id = $2', [
        meetingId,
        nodeId,
      ]);
    },
    async listMediaHomes() {
      const found = await rows<{ media_node_id: string }>(
        'SELECT DISTINCT media_node_id FROM chat_meetings WHERE active AND media_node_id IS NOT NULL',
        [],
      );
      return found.map((row) => row.media_node_id);
    },
    async listMeetingsOnMediaNode(nodeId) {
      const found = await rows<{ id: string }>('SELECT id FROM chat_meetings WHERE media_node_id = $1', [
        nodeId,
      ]);
      return found.map((row) => row.id);
    },
    async claimMeetingFence(meetingId) {
      const [row] = await rows<{ fence: string }>(
        'UPDATE chat_meetings SET fence = fence + 1 WHERE id = $1 RETURNING fence',
        [meetingId],
      );
      return row === undefined ? undefined : Number(row.fence);
    },
    async requireMeetingFence(meetingId, fence) {
      const [row] = await rows<{ fence: string }>('SELECT fence FROM chat_meetings WHERE id = $1', [
        meetingId,
      ]);
      if (row !== undefined && Number(row.fence) !== fence)
        throw fenceRefused(meetingId, fence, Number(row.fence));
    },
  };
}

/** The error of a write whose fencing token is older than the meeting's: another holder acted since. */
export function fenceRefused(meetingId: string, fence: number, current: number): ChatError {
  return new ChatError(
    'dependency_unavailable',
    `expected to hold the lock of meeting ${meetingId} (fencing token ${fence}) but another node took it since (token ${current}): retry`,
    { details: { retryAfterSeconds: 1, fence, currentFence: current } },
  );
}

/**
 * Refuses, within the transaction of `client`, a write carrying a fencing token older than the
 * meeting's; the row stays locked until the transaction ends, so no newer token is issued meanwhile
 * (`NO KEY UPDATE`: two fenced writes of one meeting queue rather than deadlock, and participant
 * inserts of other transactions, which only take a key-share lock, are not held up). Nothing is
 * checked without a token or for a meeting that does not exist.
 * @throws ChatError `dependency_unavailable`
 */
export async function checkMeetingFence(
  client: PoolClient,
  meetingId: string,
  fence: number | undefined,
): Promise<void> {
  if (fence === undefined) return;
  const result = await client.query<{ fence: string }>(
    'SELECT fence FROM chat_meetings WHERE id = $1 FOR NO KEY UPDATE',
    [meetingId],
  );
  const row = result.rows[0];
  if (row !== undefined && Number(row.fence) !== fence)
    throw fenceRefused(meetingId, fence, Number(row.fence));
}
