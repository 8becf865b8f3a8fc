import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { signLocalToken } from '../../src/auth/sign-token.js';
import { loadConfig } from '../../src/config.js';
import { configRefusal } from '../support/config-refusal.js';

describe('XMPP mirror configuration', () => {
  it('is off unless CHAT_XMPP_URL is set', () => {
    expect(loadConfig({}).chat.xmpp).toBeUndefined();
  });

  it('reads the API URL, domains and credentials, with the MUC domain defaulting to muc.<domain>', () => {
    const config = loadConfig({
      CHAT_XMPP_URL: 'http://127.0.0.1:5281/api',
      CHAT_XMPP_DOMAIN: 'chat.example.com',
    });
    expect(config.chat.xmpp).toEqual({
      apiUrl: 'http://127.0.0.1:5281/api',
      domain: 'chat.example.com',
      mucDomain: 'muc.chat.example.com',
      credentials: undefined,
      webSocketUrl: undefined,
      leaseMs: 30_000,
      pollIntervalMs: 1000,
    });
    const full = loadConfig({
      CHAT_XMPP_URL: 'https://xmpp.example.com/api',
      CHAT_XMPP_DOMAIN: 'example.com',
      CHAT_XMPP_MUC_DOMAIN: 'rooms.example.com',
      CHAT_XMPP_API_USER: 'mirror@example.com',
      CHAT_XMPP_API_PASSWORD: 'secret',
      CHAT_XMPP_WEBSOCKET_URL: 'wss://xmpp.example.com/ws',
    });
    expect(full.chat.xmpp).toMatchObject({
      mucDomain: 'rooms.example.com',
      credentials: { user: 'mirror@example.com', password: 'secret' },
      webSocketUrl: 'wss://xmpp.example.com/ws',
    });
  });

  it('refuses values that do not fit, naming the variables', () => {
    expect(configRefusal({ CHAT_XMPP_URL: 'redis://127.0.0.1' })).toContain(
      'CHAT_XMPP_URL: expected a http:// or https:// URL',
    );
    expect(configRefusal({ CHAT_XMPP_URL: 'http://127.0.0.1:5281/api' })).toContain(
      'CHAT_XMPP_URL needs CHAT_XMPP_DOMAIN',
    );
    expect(configRefusal({ CHAT_XMPP_DOMAIN: 'example.com' })).toContain(
      'CHAT_XMPP_DOMAIN set without CHAT_XMPP_URL',
    );
    expect(configRefusal({ CHAT_XMPP_URL: 'http://x/api', CHAT_XMPP_DOMAIN: 'Example.COM' })).toContain(
      'CHAT_XMPP_DOMAIN: expected a lower-case domain name',
    );
    expect(
      configRefusal({
        CHAT_XMPP_URL: 'http://x/api',
        CHAT_XMPP_DOMAIN: 'example.com',
        CHAT_XMPP_API_USER: 'a@b',
      }),
    ).toContain('CHAT_XMPP_API_USER and CHAT_XMPP_API_PASSWORD go together');
    expect(
      configRefusal({
        CHAT_XMPP_URL: 'http://x/api',
        CHAT_XMPP_DOMAIN: 'example.com',
        CHAT_XMPP_MUC_DOMAIN: 'example.com',
      }),
    ).toContain('CHAT_XMPP_MUC_DOMAIN must differ');
    expect(
      configRefusal({
        CHAT_XMPP_URL: 'http://x/api',
        CHAT_XMPP_DOMAIN: 'example.com',
        CHAT_XMPP_WEBSOCKET_URL: 'http://x/ws',
      }),
    ).toContain('CHAT_XMPP_WEBSOCKET_URL: expected a ws:// or wss:// URL');
  });

  it('reads the lease and poll of the outbox drainer, within their bounds', () => {
    const xmpp = { CHAT_XMPP_URL: 'http://x/api', CHAT_XMPP_DOMAIN: 'example.com' };
    expect(
      loadConfig({ ...xmpp, CHAT_XMPP_LEASE_MS: '2000', CHAT_XMPP_POLL_MS: '50' }).chat.xmpp,
    ).toMatchObject({ leaseMs: 2000, pollIntervalMs: 50 });
    expect(configRefusal({ ...xmpp, CHAT_XMPP_LEASE_MS: '999' })).toContain('CHAT_XMPP_LEASE_MS');
    expect(configRefusal({ ...xmpp, CHAT_XMPP_LEASE_MS: '3600001' })).toContain('CHAT_XMPP_LEASE_MS');
    expect(configRefusal({ ...xmpp, CHAT_XMPP_POLL_MS: '49' })).toContain('CHAT_XMPP_POLL_MS');
    expect(configRefusal({ ...xmpp, CHAT_XMPP_POLL_MS: '3600001' })).toContain('CHAT_XMPP_POLL_MS');
  });

  it('puts the JID claim ejabberd reads into local tokens when an XMPP domain is given', async () => {
    const secret = 'x'.repeat(32);
    const withJid = decodeJwt(await signLocalToken(secret, { userId: 'u1', xmppDomain: 'example.com' }));
    expect(withJid).toMatchObject({ sub: 'u1', jid: 'u1@example.com' });
    expect(decodeJwt(await signLocalToken(secret, { userId: 'u1' }))).not.toHaveProperty('jid');
  });
});
