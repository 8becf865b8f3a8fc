/** The three kinds of room. */
export const roomTypes = ['group', 'one_to_one', 'temporary'] as const;

/** One of {@link roomTypes}. */
export type RoomType = (typeof roomTypes)[number];

/** A room as stored. */
export interface RoomRecord {
  id: string;
  type: RoomType;
  /** Empty for one_to_one rooms. */
  name: string;
  /** Empty for one_to_one rooms. */
  description: string;
  /** The room's meeting, once a meeting is attached to it. */
  meetingId: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** When the picture was last set; null when the room has no picture. */
  pictureUpdatedAt: Date | null;
}

/** A member of a room as stored. */
export interface MemberRecord {
  userId: string;
  owner: boolean;
  joinedAt: Date;
}

/** One user's settings for one room as stored. */
export interface RoomUserSettingsRecord {
  muted: boolean;
  /** The history watermark set by "clear history"; null when never cleared. */
  clearedAt: Date | null;
}

/** A room's picture metadata; the bytes live in the blob store under `blobKey`. */
export interface PictureRecord {
  roomId: string;
  blobKey: string;
  name: string;
  mimeType: string;
  size: number;
  /** The uploader. */
  userId: string;
  updatedAt: Date;
}

/** An attachment's metadata; the bytes live in the blob store under `blobKey`. */
export interface AttachmentRecord {
  id: string;
  roomId: string;
  /** The uploader. */
  userId: string;
  name: string;
  mimeType: string;
  size: number;
  /** Display area of the preview, `WIDTHxHEIGHT`; null when not given. */
  area: string | null;
  blobKey: string;
  createdAt: Date;
}

/** A room of {@link ChatStore.listRoomsOfUser} with what was asked for. */
export interface RoomListing {
  room: RoomRecord;
  /**
   * Present when members were asked for, in join order. Stores may share these arrays between
   * calls: treat them as read-only.
   */
  members?: readonly Member[];
  /** Present when settings were asked for; null when the user has no settings row. */
  settings?: RoomUserSettingsRecord | null;
}

/** A member as the API shows it. */
export interface Member {
  userId: string;
  owner: boolean;
}

/** The caller's settings for a room as the API shows them. */
export interface RoomUserSettings {
  muted: boolean;
  /** Present once history was cleared. */
  clearedAt?: string;
}

/** A room as the API shows it; dates are ISO-8601 strings. */
export interface Room {
  id: string;
  type: RoomType;
  name: string;
  description: string;
  meetingId?: string;
  createdAt: string;
  updatedAt: string;
  /** Present while the room has a picture. */
  pictureUpdatedAt?: string;
  members: Member[];
  userSettings?: RoomUserSettings;
}

/** A member added by `addMember`. */
export interface MemberInserted {
  userId: string;
  owner: boolean;
  /** Present when the member was added with `historyCleared`. */
  clearedAt?: string;
}

/** Attachment metadata as the API shows it. */
export interface Attachment {
  id: string;
  name: string;
  size: number;
  mimeType: string;
  userId: string;
  roomId: string;
  createdAt: string;
  area?: string;
}

/** One page of attachments; `filter` asks for the next page and is absent on the last one. */
export interface AttachmentsPage {
  attachments: Attachment[];
  filter?: string;
}

/** The user on whose behalf an operation runs. */
export interface Actor {
  userId: string;
  /** The caller's credentials, passed on to a user directory that needs them. */
  credentials?: string;
}
