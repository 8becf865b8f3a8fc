import { describe, expect, it } from 'vitest';
import { inspectOriginalMessage } from './original-message.js';

const attachmentId = '6c1a7a52-4f2b-4c0e-9d0c-1d2e3f4a5b6c';

describe('inspectOriginalMessage', () => {
  it('treats text that is not XML as a plain message', () => {
    expect(inspectOriginalMessage('hello, a < b')).toEqual({ forwardCount: 0 });
  });

  it("finds the attachment of an attachmentAdded stanza and a forward's count", () => {
    const stanza = `<message xmlns='jabber:client' from='a@carbonio' to='r@muclight.carbonio' type='groupchat'>
      <x xmlns='urn:xmpp:muclight:0#configuration'><operation>attachmentAdded</operation>
      <attachment-id>${attachmentId.toUpperCase()}</attachment-id><filename>a.png</filename></x>
      <forwarded xmlns='urn:xmpp:forward:0' count='2'><message><body>hi</body></message></forwarded><body/></message>`;
    expect(inspectOriginalMessage(stanza)).toEqual({ attachmentId, forwardCount: 2 });
  });

  it('refuses malformed XML and DOCTYPEs', () => {
    expect(() => inspectOriginalMessage('<message><body>hi</message>')).toThrow(
      expect.objectContaining({ code: 'invalid_input' }),
    );
    expect(() => inspectOriginalMessage('<!DOCTYPE x [<!ENTITY a "b">]><message/>')).toThrow(
      expect.objectContaining({ code: 'invalid_input' }),
    );
  });
});
