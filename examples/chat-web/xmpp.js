// XMPP over WebSocket for the chat page, with the global `XMPP` of @xmpp/client's browser bundle.

const mucNamespace = 'http://jabber.org/protocol/muc';
const mamNamespace = 'urn:xmpp:mam:2';
const operationNamespace = 'urn:xmpp:muclight:0#configuration';

const pubsubEventNamespace = 'http://jabber.org/protocol/pubsub#event';
const delayNamespace = 'urn:xmpp:delay';

/** The claims of a JWT, read without checking it (the server checks it). */
export function claimsOf(token) {
  const payload = token.split('.')[1] ?? '';
  const binary = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
  return JSON.parse(
    new TextDecoder().decode(Uint8Array.from(binary, (character) => character.charCodeAt(0))),
  );
}

/** The user id (`sub`) of a JWT. */
export function userIdOf(token) {
  return claimsOf(token).sub;
}

/** When a stanza was sent: its XEP-0203 delay, else now (a live message). */
function sentAt(stanza) {
  const stamp = stanza?.getChild('delay', delayNamespace)?.attrs.stamp;
  const date = stamp ? new Date(stamp) : new Date();
  return Number.isNaN(date.getTime()) ? new Date() : date;
}

/**
 * A message stanza as the page shows it: who sent it, its text, and what it carries (a system
 * operation, an attachment, a forwarded message). `delay` is the archive or forward timestamp.
 */
export function describeMessage(message, at = sentAt(message)) {
  const from = message.attrs.from ?? '';
  const operation = message.getChild('x', operationNamespace);
  const forwarded = message.getChild('forwarded', 'urn:xmpp:forward:0');
  const inner = forwarded?.getChild('message');
  return {
    id: message.attrs.id,
    sender: from.slice(from.indexOf('/') + 1),
    at,
    text: message.getChildText('body') ?? '',
    operation: operation?.getChildText('operation') ?? undefined,
    fields: Object.fromEntries(
      (operation?.children ?? [])
        .filter((child) => typeof child !== 'string' && child.name !== 'operation')
        .map((child) => [child.name, child.getText()]),
    ),
    attachment: operation?.getChildText('attachment-id')
      ? { id: operation.getChildText('attachment-id'), name: operation.getChildText('filename') }
      : undefined,
    forwardedText: inner ? (inner.getChildText('body') ?? '') : undefined,
    forwardedAt: forwarded?.getChild('delay')?.attrs.stamp,
  };
}

/**
 * Logs into XMPP with the API token as password (ejabberd JWT authentication). The socket is
 * `ws://` on a developer machine, where @xmpp/client would not pick PLAIN by itself: it is chosen
 * here. `onMessage(roomJid, message)` gets live groupchat messages, of joined rooms and (MUC/Sub
 * events) of the others.
 */
export async function connectXmpp({ webSocketUrl, domain, token, onMessage }) {
  const { client, xml } = globalThis.XMPP;
  const userId = userIdOf(token);
  const xmpp = client({
    service: webSocketUrl,
    domain,
    resource: `web-${Math.random().toString(36).slice(2, 8)}`,
    credentials: (authenticate) => authenticate({ username: userId, password: token }, 'PLAIN'),
  });
  const archiveResults = new Map();
  xmpp.on('error', (error) => console.warn('xmpp', error));
  xmpp.on('stanza', (stanza) => {
    if (stanza.name !== 'message') return;
    const result = stanza.getChild('result', mamNamespace);
    if (result) {
      const message = result.getChild('forwarded', 'urn:xmpp:forward:0')?.getChild('message');
      const at = sentAt(result.getChild('forwarded', 'urn:xmpp:forward:0'));
      if (message) archiveResults.get(result.attrs.queryid)?.push({ id: result.attrs.id, message, at });
      return;
    }
    // MUC/Sub: a message of a room this session has not joined, as a pubsub event.
    const items = stanza.getChild('event', pubsubEventNamespace)?.getChild('items');
    if (items?.attrs.node === 'urn:xmpp:mucsub:nodes:messages') {
      for (const item of items.getChildren('item')) {
        const message = item.getChild('message');
        if (message?.attrs.type === 'groupchat' && !message.getChild('subject'))
          onMessage(message.attrs.from.split('/')[0], message);
      }
      return;
    }
    if (stanza.attrs.type === 'groupchat' && !stanza.getChild('subject')) {
      onMessage(stanza.attrs.from.split('/')[0], stanza);
    }
  });
  await xmpp.start();
  // Available presence: ejabberd delivers MUC/Sub events (addressed to the bare JID) only to
  // sessions that announced themselves.
  await xmpp.send(xml('presence'));
  return {
    userId,
    async join(roomJid) {
      const presence = xml(
        'presence',
        { to: `${roomJid}/${userId}` },
        xml('x', { xmlns: mucNamespace }, xml('history', { maxstanzas: '0' })),
      );
      await xmpp.send(presence);
    },
    async leave(roomJid) {
      await xmpp.send(xml('presence', { to: `${roomJid}/${userId}`, type: 'unavailable' }));
    },
    async say(roomJid, text) {
      const id = crypto.randomUUID();
      await xmpp.send(xml('message', { to: roomJid, type: 'groupchat', id }, xml('body', {}, text)));
      return id;
    },
    /** The `max` archived messages before archive id `before` (the newest when absent), oldest first. */
    async history(roomJid, { max = 20, before } = {}) {
      const queryid = crypto.randomUUID();
      archiveResults.set(queryid, []);
      const set = xml(
        'set',
        { xmlns: 'http://jabber.org/protocol/rsm' },
        xml('max', {}, String(max)),
        xml('before', {}, before ?? ''),
      );
      try {
        const fin = await xmpp.iqCaller.request(
          xml('iq', { type: 'set', to: roomJid }, xml('query', { xmlns: mamNamespace, queryid }, set)),
        );
        const finished = fin.getChild('fin', mamNamespace);
        return { messages: archiveResults.get(queryid), complete: finished?.attrs.complete === 'true' };
      } finally {
        archiveResults.delete(queryid);
      }
    },
    stop: () => xmpp.stop(),
  };
}
