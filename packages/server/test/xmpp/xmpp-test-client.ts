// @ts-expect-error @xmpp/client ships no type declarations; the few calls used here are typed below.
import { client as createClient, xml } from '@xmpp/client';

/** An XML element as @xmpp/client gives it (ltx). */
export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: (XmlElement | string)[];
  getChild(name: string, xmlns?: string): XmlElement | undefined;
  getChildren(name: string, xmlns?: string): XmlElement[];
  getChildText(name: string, xmlns?: string): string | null;
  getText(): string;
  toString(): string;
}

interface RawClient {
  start(): Promise<unknown>;
  stop(): Promise<unknown>;
  send(element: unknown): Promise<void>;
  on(event: 'stanza', listener: (stanza: XmlElement) => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
  on(event: 'connect', listener: () => void): void;
  socket?: { setNoDelay?(noDelay: boolean): void } | null;
  iqCaller: { request(element: unknown, timeout?: number): Promise<XmlElement> };
}

const mucNamespace = 'http://jabber.org/protocol/muc';
const mamNamespace = 'urn:xmpp:mam:2';

/** One user's XMPP session for tests: every stanza received is kept. */
export interface XmppTestClient {
  jid: string;
  stanzas: XmlElement[];
  /** Resolves with the first stanza (already received or coming) matching `predicate`. */
  next(predicate: (stanza: XmlElement) => boolean, timeoutMs?: number): Promise<XmlElement>;
  /** Joins a MUC room with the user id as nickname; resolves with the room's answer (own presence or error). */
  join(roomJid: string): Promise<XmlElement>;
  /** Sends a groupchat message with `id`. */
  say(roomJid: string, id: string, text: string): Promise<void>;
  /** Queries the room's archive (MAM); resolves with the archived messages, or the error iq. */
  history(roomJid: string): Promise<{ messages: XmlElement[]; error?: XmlElement }>;
  /**
   * Submits the room's owner configuration form (`muc#owner`) with `fields` (e.g.
   * `muc#roomconfig_membersonly: '0'`); resolves with the result iq, or the `<error/>` element of a refusal.
   */
  configure(roomJid: string, fields: Record<string, string>): Promise<XmlElement>;
  /**
   * Asks the room to give `jid` an affiliation (`muc#admin`); resolves with the result iq, or the
   * `<error/>` element of a refusal.
   */
  affiliate(roomJid: string, jid: string, affiliation: string): Promise<XmlElement>;
  stop(): Promise<void>;
}

/**
 * Logs into XMPP as `userId` with `token` as the password (ejabberd's JWT authentication) over
 * `service` (`xmpp://` TCP or `ws://` WebSocket). The connection is plain loopback, where
 * @xmpp/client would not pick PLAIN by itself, so the mechanism is chosen here.
 */
export async function connectXmppClient(options: {
  service: string;
  domain: string;
  userId: string;
  token: string;
}): Promise<XmppTestClient> {
  const raw = createClient({
    service: options.service,
    domain: options.domain,
    resource: `test-${Math.random().toString(36).slice(2, 8)}`,
    credentials: (authenticate: (credentials: unknown, mechanism: string) => Promise<void>) =>
      authenticate({ username: options.userId, password: options.token }, 'PLAIN'),
  }) as RawClient;
  const stanzas: XmlElement[] = [];
  const waiters: { predicate: (stanza: XmlElement) => boolean; resolve(stanza: XmlElement): void }[] = [];
  raw.on('error', () => {});
  // TCP_NODELAY, as ejabberd's side has: without it each stanza sent right after another waits for
  // the server's delayed ACK (40 ms). WebSocket sockets have no setNoDelay here and need none.
  raw.on('connect', () => raw.socket?.setNoDelay?.(true));
  raw.on('stanza', (stanza) => {
    stanzas.push(stanza);
    for (const waiter of [...waiters]) {
      if (!waiter.predicate(stanza)) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(stanza);
    }
  });
  await raw.start();
  const jid = `${options.userId}@${options.domain}`;
  const next = (predicate: (stanza: XmlElement) => boolean, timeoutMs = 10_000) => {
    const found = stanzas.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise<XmlElement>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching stanza within ${timeoutMs} ms`)),
        timeoutMs,
      );
      waiters.push({
        predicate,
        resolve: (stanza) => {
          clearTimeout(timer);
          resolve(stanza);
        },
      });
    });
  };
  const requestOrError = async (request: unknown): Promise<XmlElement> => {
    try {
      return await raw.iqCaller.request(request, 10_000);
    } catch (error) {
      const element = (error as { element?: XmlElement }).element;
      if (element) return element;
      throw error;
    }
  };
  return {
    jid,
    stanzas,
    next,
    async join(roomJid) {
      const occupant = `${roomJid}/${options.userId}`;
      const answer = next(
        (stanza) =>
          stanza.name === 'presence' &&
          stanza.attrs.from === occupant &&
          (stanza.attrs.type === 'error' ||
            stanza
              .getChild('x', `${mucNamespace}#user`)
              ?.getChildren('status')
              .some((s) => s.attrs.code === '110') === true),
      );
      await raw.send(
        xml(
          'presence',
          { to: occupant },
          xml('x', { xmlns: mucNamespace }, xml('history', { maxstanzas: '0' })),
        ),
      );
      return answer;
    },
    async say(roomJid, id, text) {
      await raw.send(xml('message', { to: roomJid, type: 'groupchat', id }, xml('body', {}, text)));
    },
    async history(roomJid) {
      const queryId = `q-${Math.random().toString(36).slice(2)}`;
      const before = stanzas.length;
      try {
        await raw.iqCaller.request(
          xml('iq', { type: 'set', to: roomJid }, xml('query', { xmlns: mamNamespace, queryid: queryId })),
          10_000,
        );
      } catch (error) {
        const element = (error as { element?: XmlElement }).element;
        return { messages: [], ...(element ? { error: element } : { error: undefined }) };
      }
      const messages = stanzas
        .slice(before)
        .map((stanza) => stanza.getChild('result', mamNamespace))
        .filter((result): result is XmlElement => result?.attrs.queryid === queryId)
        .map((result) => result.getChild('forwarded', 'urn:xmpp:forward:0')?.getChild('message'))
        .filter((message): message is XmlElement => message !== undefined);
      return { messages };
    },
    async configure(roomJid, fields) {
      const form = xml(
        'x',
        { xmlns: 'jabber:x:data', type: 'submit' },
        xml(
          'field',
          { var: 'FORM_TYPE', type: 'hidden' },
          xml('value', {}, 'http://jabber.org/protocol/muc#roomconfig'),
        ),
        ...Object.entries(fields).map(([name, value]) =>
          xml('field', { var: name }, xml('value', {}, value)),
        ),
      );
      return requestOrError(
        xml('iq', { type: 'set', to: roomJid }, xml('query', { xmlns: `${mucNamespace}#owner` }, form)),
      );
    },
    async affiliate(roomJid, jid, affiliation) {
      const item = xml('item', { jid, affiliation });
      return requestOrError(
        xml('iq', { type: 'set', to: roomJid }, xml('query', { xmlns: `${mucNamespace}#admin` }, item)),
      );
    },
    async stop() {
      await raw.stop().catch(() => {});
    },
  };
}
