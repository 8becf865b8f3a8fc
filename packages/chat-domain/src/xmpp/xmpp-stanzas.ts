import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import type { RoomMessagePayload } from '../events.js';

/** Namespace of the operation element the original's clients read (`<x><operation>…</operation></x>`). */
export const operationNamespace = 'urn:xmpp:muclight:0#configuration';

/** Where a message goes and who sends it. */
export interface StanzaAddressing {
  /** The stanza's `id`: stable across retries, so a client can tell a repeat. */
  id: string;
  /** Bare JID of the sender. */
  from: string;
  /** Bare JID of the MUC room. */
  to: string;
}

/** Escapes text for an XML text node or a single- or double-quoted attribute. */
export function escapeXml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const element = (name: string, value: string) => `<${name}>${escapeXml(value)}</${name}>`;

function operationElement(operation: string, fields: Record<string, string | number | undefined>): string {
  const children = Object.entries(fields)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([name, value]) => element(name, String(value)))
    .join('');
  return `<x xmlns='${operationNamespace}'>${element('operation', operation)}${children}</x>`;
}

const body = (text: string | undefined) => (text ? element('body', text) : '<body/>');

/**
 * XEP-0334 store hint: ejabberd's MAM archives a groupchat message only when it has a body, a
 * subject or this hint, and system messages have an empty body.
 */
const storeHint = "<store xmlns='urn:xmpp:hints'/>";

/** Children of a forwarded original that describe its first delivery and are dropped (reference §9). */
const droppedChildren = new Set([
  'markable',
  'forwarded',
  'reply',
  'stanza-id',
  'x',
  'archived',
  'delay',
  'store',
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  preserveOrder: true,
  processEntities: false,
  parseTagValue: false,
  trimValues: false,
});
const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  preserveOrder: true,
  processEntities: false,
  suppressEmptyNode: true,
});

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

/**
 * The original message as it goes inside `<forwarded>`: an XMPP `<message>` without the children
 * of its first delivery, in the `jabber:client` namespace; plain text becomes a message body.
 */
export function forwardedOriginal(original: string): string {
  const trimmed = original.trim();
  if (!trimmed.startsWith('<'))
    return `<message xmlns='jabber:client' type='groupchat'>${body(original)}</message>`;
  const nodes = parser.parse(trimmed) as OrderedNode[];
  const message = nodes.find((node) => 'message' in node);
  if (message === undefined) {
    return `<message xmlns='jabber:client' type='groupchat'>${body(trimmed)}</message>`;
  }
  const children = (message.message as OrderedNode[]).filter(
    (child) => !Object.keys(child).some((name) => droppedChildren.has(name)),
  );
  const attributes = { ...message[':@'], '@_xmlns': 'jabber:client' };
  return builder.build([{ message: children, ':@': attributes }]) as string;
}

/**
 * The groupchat stanza of a room message, as the original sent it: system messages and attachment
 * notices carry an operation element; a forward carries XEP-0297 `<forwarded>` with an XEP-0203
 * `<delay>` when the original's time is known.
 */
export function messageStanza(message: RoomMessagePayload, addressing: StanzaAddressing): string {
  const head = `<message xmlns='jabber:client' from='${escapeXml(addressing.from)}' to='${escapeXml(addressing.to)}' id='${escapeXml(addressing.id)}' type='groupchat'>`;
  switch (message.type) {
    case 'ROOM_SYSTEM_MESSAGE':
      return `${head}${operationElement(message.operation, message.fields)}<body/>${storeHint}</message>`;
    case 'ROOM_ATTACHMENT_ADDED': {
      const { attachment } = message;
      const notice = operationElement('attachmentAdded', {
        'attachment-id': attachment.id,
        filename: attachment.name,
        'mime-type': attachment.mimeType,
        size: attachment.size,
        area: attachment.area,
      });
      const reply = message.replyId
        ? `<reply xmlns='urn:xmpp:reply:0' id='${escapeXml(message.replyId)}' to='${escapeXml(addressing.to)}'/>`
        : '';
      return `${head}${notice}${body(message.description)}${reply}${storeHint}</message>`;
    }
    case 'ROOM_MESSAGE_FORWARDED': {
      const { attachment } = message;
      const notice = attachment
        ? operationElement('attachmentAdded', {
            'attachment-id': attachment.id,
            filename: attachment.name,
            'mime-type': attachment.mimeType,
            size: attachment.size,
          })
        : '';
      const delay = message.originalMessageSentAt
        ? `<delay xmlns='urn:xmpp:delay' stamp='${escapeXml(message.originalMessageSentAt)}'/>`
        : '';
      const forwarded = `<forwarded xmlns='urn:xmpp:forward:0' count='${message.count}'>${delay}${forwardedOriginal(message.originalMessage)}</forwarded>`;
      return `${head}${notice}${body(message.description)}${forwarded}${storeHint}</message>`;
    }
  }
}
