import type { MeetingRecord, MeetingType, ParticipantRecord } from '../meetings/meeting-model.js';
import type { DateColumn } from './sql-rows.js';

const toDate = (value: DateColumn) => (value instanceof Date ? value : new Date(Number(value)));
const toNullableDate = (value: DateColumn | null) => (value === null ? null : toDate(value));

/** Columns of `chat_meetings` in the order {@link MeetingRow} reads them. */
export const meetingColumns = 'id, room_id, name, meeting_type, expiration, active, started_at, created_at';

/** Columns of `chat_meeting_participants` in the order {@link ParticipantRow} reads them. */
export const participantColumns =
  'meeting_id, user_id, queue_id, audio_stream_enabled, video_stream_enabled, screen_stream_enabled, joined_at';

/** A `chat_meetings` row. */
export interface MeetingRow {
  id: string;
  room_id: string;
  name: string;
  meeting_type: string;
  expiration: DateColumn | null;
  active: number | boolean;
  started_at: DateColumn | null;
  created_at: DateColumn;
}

/** Maps a `chat_meetings` row. */
export function meetingFromRow(row: MeetingRow): MeetingRecord {
  return {
    id: row.id,
    roomId: row.room_id,
    name: row.name,
    meetingType: row.meeting_type as MeetingType,
    expiration: toNullableDate(row.expiration),
    active: Boolean(row.active),
    startedAt: toNullableDate(row.started_at),
    createdAt: toDate(row.created_at),
  };
}

/** A `chat_meeting_participants` row. */
export interface ParticipantRow {
  meeting_id: string;
  user_id: string;
  queue_id: string;
  audio_stream_enabled: number | boolean;
  video_stream_enabled: number | boolean;
  screen_stream_enabled: number | boolean;
  joined_at: DateColumn;
}

/** Maps a `chat_meeting_participants` row. */
export function participantFromRow(row: ParticipantRow): ParticipantRecord {
  return {
    userId: row.user_id,
    queueId: row.queue_id,
    audioStreamEnabled: Boolean(row.audio_stream_enabled),
    videoStreamEnabled: Boolean(row.video_stream_enabled),
    screenStreamEnabled: Boolean(row.screen_stream_enabled),
    joinedAt: toDate(row.joined_at),
  };
}

/** Groups participant rows by meeting, keeping their order. */
export function participantsByMeeting(rows: readonly ParticipantRow[]): Map<string, ParticipantRecord[]> {
  const result = new Map<string, ParticipantRecord[]>();
  for (const row of rows) {
    const list = result.get(row.meeting_id) ?? [];
    list.push(participantFromRow(row));
    result.set(row.meeting_id, list);
  }
  return result;
}
