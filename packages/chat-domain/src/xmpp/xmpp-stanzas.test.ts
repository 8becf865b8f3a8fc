import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { forwardedOriginal, messageStanza } from './xmpp-stanzas.js';

const addressing = { id: 'stanza-1', from: 'alice@collab.test', to: 'room-1@muc.collab.test' };

describe('messageStanza', () => {
  it('writes a system message as an operation element with its fields, escaped', () => {
    const stanza = messageStanza(
      {
        type: 'ROOM_SYSTEM_MESSAGE',
        roomId: 'room-1',
        senderId: 'alice',
        operation: 'roomNameChanged',
        fields: { value: 'R&D <team>' },
      },
      addressing,
    );
    expect(stanza).toBe(
      "<message xmlns='jabber:client' from='alice@collab.test' to='room-1@muc.collab.test' id='stanza-1' type='groupchat'>" +
        "<x xmlns='urn:xmpp:muclight:0#configuration'><operation>roomNameChanged</operation><value>R&amp;D &lt;team&gt;</value></x><body/><store xmlns='urn:xmpp:hints'/></message>",
    );
  });

  it('writes an attachment notice with the attachment id, its description as body and the reply', () => {
    const stanza = messageStanza(
      {
        type: 'ROOM_ATTACHMENT_ADDED',
        roomId: 'room-1',
        senderId: 'alice',
        attachment: { id: 'file-1', name: "it's.png", mimeType: 'image/png', size: 42, area: '15x20' },
        description: 'a picture',
        replyId: 'earlier',
      },
      addressing,
    );
    expect(stanza).toContain(
      '<operation>attachmentAdded</operation><attachment-id>file-1</attachment-id><filename>it&apos;s.png</filename><mime-type>image/png</mime-type><size>42</size><area>15x20</area>',
    );
    expect(stanza).toContain(
      "<body>a picture</body><reply xmlns='urn:xmpp:reply:0' id='earlier' to='room-1@muc.collab.test'/>",
    );
    expect(XMLValidator.validate(stanza)).toBe(true);
  });

  it('wraps a forward in XEP-0297 with an XEP-0203 delay and drops the original delivery children', () => {
    const original =
      "<message from='other@muc/bob' id='m1' type='groupchat'><body>Hello &amp; bye</body><stanza-id xmlns='urn:xmpp:sid:0' id='s'/><markable xmlns='urn:xmpp:chat-markers:0'/></message>";
    const stanza = messageStanza(
      {
        type: 'ROOM_MESSAGE_FORWARDED',
        roomId: 'room-1',
        senderId: 'alice',
        originalMessage: original,
        originalMessageSentAt: '2024-05-01T10:00:00Z',
        description: 'look',
        count: 2,
      },
      addressing,
    );
    expect(XMLValidator.validate(stanza)).toBe(true);
    expect(stanza).toContain(
      "<body>look</body><forwarded xmlns='urn:xmpp:forward:0' count='2'><delay xmlns='urn:xmpp:delay' stamp='2024-05-01T10:00:00Z'/><message",
    );
    expect(stanza).toContain(
      "<body>Hello &amp; bye</body></message></forwarded><store xmlns='urn:xmpp:hints'/></message>",
    );
    expect(stanza).not.toContain('stanza-id');
    expect(stanza).not.toContain('markable');
  });

  it('forwards plain text as the body of a message', () => {
    expect(forwardedOriginal('a < b')).toBe(
      "<message xmlns='jabber:client' type='groupchat'><body>a &lt; b</body></message>",
    );
  });
});
