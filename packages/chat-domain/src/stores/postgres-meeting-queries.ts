import type { PoolClient } from 'pg';
import { ChatError, roomNotFound } from '../errors.js';
import type { MeetingStore } from '../ports/meeting-store.js';
import {
  type MeetingRow,
  meetingColumns,
  meetingFromRow,
  type ParticipantRow,
  participantColumns,
  participantFromRow,
  participantsByMeeting,
} from './meeting-rows.js';
import type { PostgresContext } from './postgres-file-queries.js';
import { checkMeetingFence } from './postgres-meeting-coordination.js';

const prefixed = (prefix: string) => meetingColumns.replace(/(\w+)/g, `${prefix}.$1`);

function translateMeetingError(error: unknown, meetingId: string, roomId?: string): never {
  const code = (error as { code?: string }).code;
  const constraint = (error as { constraint?: string }).constraint ?? '';
  if (code === '23505' && roomId !== undefined) {
    throw new ChatError('meeting_exists', `expected no meeting in room ${roomId} but it has one`, {
      cause: error,
    });
  }
  if (code === '23503' && constraint.includes('room')) {
    throw roomNotFound(String(roomId), error);
  }
  if (code === '23503') {
    throw new ChatError('meeting_not_found', `expected an existing meeting but ${meetingId} does not exist`, {
      cause: error,
    });
  }
  throw error;
}

/** Meeting queries of the PostgreSQL store. */
export function createPostgresMeetingQueries({ rows, transaction }: PostgresContext): MeetingStore {
  const meetings = async (text: string, values: unknown[]) =>
    (await rows<MeetingRow>(text, values)).map(meetingFromRow);
  const updateRoomLink = (client: PoolClient, meetingId: string, roomId: string) =>
    client.query('UPDATE chat_rooms SET meeting_id = $1 WHERE id = $2', [meetingId, roomId]);

  return {
    async insertMeeting(meeting) {
      try {
        await transaction(async (client) => {
          await client.query(
            `INSERT INTO chat_meetings (${meetingColumns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
            [
              meeting.id,
              meeting.roomId,
              meeting.name,
              meeting.meetingType,
              meeting.expiration,
              meeting.active,
              meeting.startedAt,
              meeting.createdAt,
            ],
          );
          await updateRoomLink(client, meeting.id, meeting.roomId);
        });
      } catch (error) {
        translateMeetingError(error, meeting.id, meeting.roomId);
      }
    },
    async getMeeting(meetingId) {
      return (await meetings(`SELECT ${meetingColumns} FROM chat_meetings WHERE id = $1`, [meetingId]))[0];
    },
    async getMeetingOfRoom(roomId) {
      return (await meetings(`SELECT ${meetingColumns} FROM chat_meetings WHERE room_id = $1`, [roomId]))[0];
    },
    async listMeetingsOfUser(userId) {
      return meetings(
        `SELECT ${prefixed('g')} FROM chat_room_members m JOIN chat_meetings g ON g.room_id = m.room_id
         WHERE m.user_id = $1 ORDER BY g.created_at, g.id`,
        [userId],
      );
    },
    async listActiveMeetings() {
      return meetings(`SELECT ${meetingColumns} FROM chat_meetings WHERE active ORDER BY created_at, id`, []);
    },
    async listExpiredMeetings(now, limit) {
      return meetings(
        `SELECT ${meetingColumns} FROM chat_meetings
         WHERE meeting_type = 'scheduled' AND NOT active AND expiration IS NOT NULL AND expiration <= $1
         ORDER BY created_at, id LIMIT $2`,
        [now, limit],
      );
    },
    async setMeetingStarted(meetingId, startedAt, fence) {
      return transaction(async (client) => {
        await checkMeetingFence(client, meetingId, fence);
        const result = await client.query<MeetingRow>(
          `UPDATE chat_meetings SET active = $2, started_at = $3 WHERE id = $1 RETURNING ${meetingColumns}`,
          [meetingId, startedAt !== null, startedAt],
        );
        const row = result.rows[0];
        if (row === undefined) return undefined;
        if (startedAt === null) {
          await client.query('DELETE FROM chat_meeting_participants WHERE meeting_id = $1', [meetingId]);
        }
        return meetingFromRow(row);
      });
    },
    async deleteMeeting(meetingId, fence) {
      return transaction(async (client) => {
        await checkMeetingFence(client, meetingId, fence);
        await client.query('UPDATE chat_rooms SET meeting_id = NULL WHERE meeting_id = $1', [meetingId]);
        const result = await client.query('DELETE FROM chat_meetings WHERE id = $1', [meetingId]);
        return (result.rowCount ?? 0) > 0;
      });
    },
    async listParticipants(meetingId) {
      const found = await rows<ParticipantRow>(
        `SELECT ${participantColumns} FROM chat_meeting_participants WHERE meeting_id = $1 ORDER BY joined_at, user_id`,
        [meetingId],
      );
      return found.map(participantFromRow);
    },
    async listParticipantsOfMeetings(meetingIds) {
      if (meetingIds.length === 0) return new Map();
      const found = await rows<ParticipantRow>(
        `SELECT ${participantColumns} FROM chat_meeting_participants WHERE meeting_id = ANY($1::uuid[])
         ORDER BY meeting_id, joined_at, user_id`,
        [meetingIds],
      );
      return participantsByMeeting(found);
    },
    async getParticipant(meetingId, userId) {
      const [row] = await rows<ParticipantRow>(
        `SELECT ${participantColumns} FROM chat_meeting_participants WHERE meeting_id = $1 AND user_id = $2`,
        [meetingId, userId],
      );
      return row && participantFromRow(row);
    },
    async putParticipant(meetingId, participant, fence) {
      try {
        await transaction(async (client) => {
          await checkMeetingFence(client, meetingId, fence);
          await client.query(
            `INSERT INTO chat_meeting_participants (${participantColumns}) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (meeting_id, user_id) DO UPDATE SET queue_id = $3, audio_stream_enabled = $4,
             video_stream_enabled = $5, screen_stream_enabled = $6, joined_at = $7`,
            [
              meetingId,
              participant.userId,
              participant.queueId,
              participant.audioStreamEnabled,
              participant.videoStreamEnabled,
              participant.screenStreamEnabled,
              participant.joinedAt,
            ],
          );
        });
      } catch (error) {
        translateMeetingError(error, meetingId);
      }
    },
    async updateParticipantStreams(meetingId, userId, changes, fence) {
      return transaction(async (client) => {
        await checkMeetingFence(client, meetingId, fence);
        const result = await client.query<ParticipantRow>(
          `UPDATE chat_meeting_participants SET audio_stream_enabled = COALESCE($3, audio_stream_enabled),
             video_stream_enabled = COALESCE($4, video_stream_enabled), screen_stream_enabled = COALESCE($5, screen_stream_enabled)
           WHERE meeting_id = $1 AND user_id = $2 RETURNING ${participantColumns}`,
          [
            meetingId,
            userId,
            changes.audioStreamEnabled ?? null,
            changes.videoStreamEnabled ?? null,
            changes.screenStreamEnabled ?? null,
          ],
        );
        const row = result.rows[0];
        return row && participantFromRow(row);
      });
    },
    async deleteParticipant(meetingId, userId, queueId, fence) {
      return transaction(async (client) => {
        await checkMeetingFence(client, meetingId, fence);
        const result = await client.query(
          'DELETE FROM chat_meeting_participants WHERE meeting_id = $1 AND user_id = $2 AND ($3::uuid IS NULL OR queue_id = $3)',
          [meetingId, userId, queueId ?? null],
        );
        return (result.rowCount ?? 0) > 0;
      });
    },
    async findMeetingsOfQueue(userId, queueId) {
      const found = await rows<{ meeting_id: string }>(
        'SELECT meeting_id FROM chat_meeting_participants WHERE user_id = $1 AND queue_id = $2',
        [userId, queueId],
      );
      return found.map((row) => row.meeting_id);
    },
  };
}
