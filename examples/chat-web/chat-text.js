// What the page writes: names, system messages as sentences, times and day labels. Pure functions.

/**
 * `nameOf(userId)`: the name the directory (`directory.json`) gives, else the name in the
 * logged-in user's own token for themselves, else the id itself.
 */
export function createNames({ directory = {}, userId, tokenName }) {
  return (id) => directory[id?.toLowerCase()] ?? (id === userId ? tokenName : undefined) ?? id ?? '?';
}

/** A system message (`operation` with its `fields`) sent by `senderId`, as a sentence. */
export function sentenceOf({ operation, fields = {}, senderId }, nameOf) {
  const actor = nameOf(senderId);
  const target = fields.userId === undefined ? undefined : nameOf(fields.userId);
  switch (operation) {
    case 'memberAdded':
      return fields.userId === senderId ? `${actor} joined` : `${actor} added ${target}`;
    case 'memberRemoved':
      return fields.userId === senderId ? `${target} left` : `${actor} removed ${target}`;
    case 'roomNameChanged':
      return `${actor} renamed the room “${fields.value ?? ''}”`;
    case 'roomDescriptionChanged':
      return `${actor} changed the description to “${fields.value ?? ''}”`;
    case 'roomPictureUpdated':
      return `${actor} changed the room picture`;
    case 'roomPictureDeleted':
      return `${actor} removed the room picture`;
    default:
      return `${actor}: ${operation}`;
  }
}

/** The time of day of `date`, e.g. `14:05`, in the browser's locale. */
export function timeOf(date) {
  return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** The local calendar day of `date` as a key (`2024-05-01`). */
export function dayKeyOf(date) {
  const pad = (value) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** A day break's label: "Today", "Yesterday" or the date, relative to `now`. */
export function dayLabelOf(date, now = new Date()) {
  const yesterday = new Date(now);
  yesterday.setDate(now.getDate() - 1);
  if (dayKeyOf(date) === dayKeyOf(now)) return 'Today';
  if (dayKeyOf(date) === dayKeyOf(yesterday)) return 'Yesterday';
  return date.toLocaleDateString([], { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' });
}
