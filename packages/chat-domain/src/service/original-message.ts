import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ChatError } from '../errors.js';
import { isUuid } from '../ids.js';

/** What a forward needs to know about the message it forwards. */
export interface OriginalMessageFacts {
  /** The attachment the message announced (an `attachmentAdded` operation), if any. */
  attachmentId?: string;
  /** How many times the original was already forwarded (0 when it is not a forward). */
  forwardCount: number;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  processEntities: false,
  removeNSPrefix: true,
  parseTagValue: false,
});

type XmlNode = Record<string, unknown>;

function findNode(node: unknown, predicate: (candidate: XmlNode) => boolean, depth = 0): XmlNode | undefined {
  if (depth > 32 || node === null || typeof node !== 'object') return undefined;
  if (Array.isArray(node)) {
    for (const child of node) {
      const found = findNode(child, predicate, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  const candidate = node as XmlNode;
  if (predicate(candidate)) return candidate;
  for (const child of Object.values(candidate)) {
    const found = findNode(child, predicate, depth + 1);
    if (found) return found;
  }
  return undefined;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value.trim()
    : typeof value === 'object' && value !== null
      ? text((value as XmlNode)['#text'])
      : undefined;

/**
 * Reads an `originalMessage` of a forward. An XMPP stanza (text starting with `<`) must be
 * well-formed XML without a DOCTYPE; any other text is a plain message.
 * @throws ChatError `invalid_input` for malformed XML
 */
export function inspectOriginalMessage(original: string): OriginalMessageFacts {
  const trimmed = original.trim();
  if (!trimmed.startsWith('<')) return { forwardCount: 0 };
  if (/<!DOCTYPE/i.test(trimmed) || XMLValidator.validate(trimmed) !== true) {
    throw new ChatError(
      'invalid_input',
      'invalid forward: `originalMessage`: expected well-formed XML without a DOCTYPE but received malformed XML',
    );
  }
  const tree: unknown = parser.parse(trimmed);
  const configuration = findNode(tree, (node) => text(node.operation) === 'attachmentAdded');
  const attachmentId = text(configuration?.['attachment-id']);
  const forwarded = findNode(tree, (node) => node.forwarded !== undefined)?.forwarded;
  const countAttribute = Array.isArray(forwarded)
    ? undefined
    : (forwarded as XmlNode | undefined)?.['@_count'];
  const forwardCount =
    forwarded === undefined ? 0 : Math.max(1, Number.parseInt(String(countAttribute ?? '1'), 10) || 1);
  if (attachmentId !== undefined && !isUuid(attachmentId)) {
    throw new ChatError(
      'attachment_not_found',
      `expected an attachment id as a UUID but received ${JSON.stringify(attachmentId)}`,
    );
  }
  return { ...(attachmentId ? { attachmentId: attachmentId.toLowerCase() } : {}), forwardCount };
}
