import type { Database, Statement } from 'better-sqlite3';
import { ChatError, roomNotFound } from '../errors.js';
import type { MeetingRecord, ParticipantRecord } from '../meetings/meeting-model.js';
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

const participantOrder = 'ORDER BY joined_at, user_id';
const flag = (value: boolean | undefined) => (value === undefined ? null : value ? 1 : 0);

/** Meeting queries of the SQLite store. */
export function createSqliteMeetingQueries(context: {
  database: Database;
  sql(text: string): Statement;
}): MeetingStore {
  const { database, sql } = context;
  const meetingRow = (where: string, ...values: unknown[]) =>
    sql(`SELECT ${meetingColumns} FROM chat_meetings WHERE ${where}`).get(...values) as
      | MeetingRow
      | undefined;
  const meetingRows = (text: string, ...values: unknown[]) =>
    (sql(text).all(...values) as MeetingRow[]).map(meetingFromRow);

  const insertMeeting = database.transaction((meeting: MeetingRecord) => {
    const room = sql('SELECT meeting_id FROM chat_rooms WHERE id = ?').get(meeting.roomId) as
      | { meeting_id: string | null }
      | undefined;
    if (room === undefined) {
      throw roomNotFound(meeting.roomId);
    }
    if (meetingRow('room_id = ?', meeting.roomId) !== undefined) {
      throw new ChatError('meeting_exists', `expected no meeting in room ${meeting.roomId} but it has one`);
    }
    sql(`INSERT INTO chat_meetings (${meetingColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(
      meeting.id,
      meeting.roomId,
      meeting.name,
      meeting.meetingType,
      meeting.expiration?.getTime() ?? null,
      meeting.active ? 1 : 0,
      meeting.startedAt?.getTime() ?? null,
      meeting.createdAt.getTime(),
    );
    sql('UPDATE chat_rooms SET meeting_id = ? WHERE id = ?').run(meeting.id, meeting.roomId);
  });
  const setStarted = database.transaction((meetingId: string, startedAt: Date | null) => {
    const changed = sql('UPDATE chat_meetings SET active = ?, started_at = ? WHERE id = ?').run(
      startedAt === null ? 0 : 1,
      startedAt?.getTime() ?? null,
      meetingId,
    ).changes;
    if (changed === 0) return undefined;
    if (startedAt === null) sql('DELETE FROM chat_meeting_participants WHERE meeting_id = ?').run(meetingId);
    const row = meetingRow('id = ?', meetingId);
    return row && meetingFromRow(row);
  });
  const deleteMeeting = database.transaction((meetingId: string) => {
    sql('UPDATE chat_rooms SET meeting_id = NULL WHERE meeting_id = ?').run(meetingId);
    return sql('DELETE FROM chat_meetings WHERE id = ?').run(meetingId).changes > 0;
  });
  const participantRow = (meetingId: string, userId: string) =>
    sql(
      `SELECT ${participantColumns} FROM chat_meeting_participants WHERE meeting_id = ? AND user_id = ?`,
    ).get(meetingId, userId) as ParticipantRow | undefined;

  return {
    async insertMeeting(meeting) {
      insertMeeting(meeting);
    },
    async getMeeting(meetingId) {
      const row = meetingRow('id = ?', meetingId);
      return row && meetingFromRow(row);
    },
    async getMeetingOfRoom(roomId) {
      const row = meetingRow('room_id = ?', roomId);
      return row && meetingFromRow(row);
    },
    async listMeetingsOfUser(userId) {
      return meetingRows(
        `SELECT ${meetingColumns.replace(/(\w+)/g, 'g.$1')} FROM chat_room_members m JOIN chat_meetings g ON g.room_id = m.room_id
         WHERE m.user_id = ? ORDER BY g.created_at, g.id`,
        userId,
      );
    },
    async listActiveMeetings() {
      return meetingRows(
        `SELECT ${meetingColumns} FROM chat_meetings WHERE active = 1 ORDER BY created_at, id`,
      );
    },
    async listExpiredMeetings(now, limit) {
      return meetingRows(
        `SELECT ${meetingColumns} FROM chat_meetings
         WHERE meeting_type = 'scheduled' AND active = 0 AND expiration IS NOT NULL AND expiration <= ?
         ORDER BY created_at, id LIMIT ?`,
        now.getTime(),
        limit,
      );
    },
    async setMeetingStarted(meetingId, startedAt) {
      return setStarted(meetingId, startedAt);
    },
    async deleteMeeting(meetingId) {
      return deleteMeeting(meetingId);
    },
    async listParticipants(meetingId) {
      const rows = sql(
        `SELECT ${participantColumns} FROM chat_meeting_participants WHERE meeting_id = ? ${participantOrder}`,
      ).all(meetingId) as ParticipantRow[];
      return rows.map(participantFromRow);
    },
    async listParticipantsOfMeetings(meetingIds) {
      if (meetingIds.length === 0) return new Map();
      const rows = sql(
        `SELECT ${participantColumns} FROM chat_meeting_participants
         WHERE meeting_id IN (SELECT value FROM json_each(?)) ORDER BY meeting_id, joined_at, user_id`,
      ).all(JSON.stringify(meetingIds)) as ParticipantRow[];
      return participantsByMeeting(rows);
    },
    async getParticipant(meetingId, userId) {
      const row = participantRow(meetingId, userId);
      return row && participantFromRow(row);
    },
    async putParticipant(meetingId, participant: ParticipantRecord) {
      try {
        sql(
          `INSERT INTO chat_meeting_participants (${participantColumns}) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (meeting_id, user_id) DO UPDATE SET queue_id = excluded.queue_id,
             audio_stream_enabled = excluded.audio_stream_enabled, video_stream_enabled = excluded.video_stream_enabled,
             screen_stream_enabled = excluded.screen_stream_enabled, joined_at = excluded.joined_at`,
        ).run(
          meetingId,
          participant.userId,
          participant.queueId,
          participant.audioStreamEnabled ? 1 : 0,
          participant.videoStreamEnabled ? 1 : 0,
          participant.screenStreamEnabled ? 1 : 0,
          participant.joinedAt.getTime(),
        );
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
          throw new ChatError(
            'meeting_not_found',
            `expected an existing meeting but ${meetingId} does not exist`,
            {
              cause: error,
            },
          );
        }
        throw error;
      }
    },
    async updateParticipantStreams(meetingId, userId, changes) {
      sql(
        `UPDATE chat_meeting_participants SET audio_stream_enabled = COALESCE(?, audio_stream_enabled),
           video_stream_enabled = COALESCE(?, video_stream_enabled), screen_stream_enabled = COALESCE(?, screen_stream_enabled)
         WHERE meeting_id = ? AND user_id = ?`,
      ).run(
        flag(changes.audioStreamEnabled),
        flag(changes.videoStreamEnabled),
        flag(changes.screenStreamEnabled),
        meetingId,
        userId,
      );
      const row = participantRow(meetingId, userId);
      return row && participantFromRow(row);
    },
    async deleteParticipant(meetingId, userId, queueId) {
      const result =
        queueId === undefined
          ? sql('DELETE FROM chat_meeting_participants WHERE meeting_id = ? AND user_id = ?').run(
              meetingId,
              userId,
            )
          : sql(
              'DELETE FROM chat_meeting_participants WHERE meeting_id = ? AND user_id = ? AND queue_id = ?',
            ).run(meetingId, userId, queueId);
      return result.changes > 0;
    },
    async findMeetingsOfQueue(userId, queueId) {
      const rows = sql(
        'SELECT meeting_id FROM chat_meeting_participants WHERE user_id = ? AND queue_id = ?',
      ).all(userId, queueId) as { meeting_id: string }[];
      return rows.map((row) => row.meeting_id);
    },
  };
}
