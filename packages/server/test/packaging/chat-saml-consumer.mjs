// Run by chat-saml-packages.test.ts inside a throw-away npm project that installed the packed
// chat-domain and saml-config next to vitest 5 and ioredis 6, without better-sqlite3 or pg: the memory
// stores work, a missing driver and a typo in an option are named, the Redis entry runs on ioredis 6.
import { createRequire } from 'node:module';
import { createChatService, createMemoryChatStore, httpStatusOf } from '@collab-suite/chat-domain';
import { createMemorySamlPropertyStore, createSamlConfigService } from '@collab-suite/saml-config';

const refusal = async (work) => {
  try {
    await work();
  } catch (error) {
    return { code: error.code, message: error.message, details: error.details, status: httpStatusOf(error) };
  }
  return undefined;
};
const alice = { userId: '0190d5b0-7a2c-7b3e-9f10-3c5d7e9a1b20' };
const bob = '0190d5b0-7a2c-7b3e-9f10-3c5d7e9a1b21';
const answer = {};

const chat = createChatService({ store: createMemoryChatStore() });
const room = await chat.createRoom(alice, { type: 'temporary', name: 'Team' });
answer.added = await chat.addMember(alice, room.id, { userId: bob });
answer.chatTypo = await refusal(() => createChatService({ stores: createMemoryChatStore() }));
const { createSqliteChatStore } = await import('@collab-suite/chat-domain/sqlite');
answer.chatSqlite = await refusal(() => createSqliteChatStore({ filename: ':memory:' }));

const saml = createSamlConfigService({ store: createMemorySamlPropertyStore() });
const generated = await saml.generateCertificate('example.com', { days: 30 });
answer.certificate = String(generated.properties['sp.x509cert']).startsWith('-----BEGIN CERTIFICATE-----');
answer.samlDays = await refusal(() => saml.generateCertificate('example.com', { days: '365' }));
await saml.close();
answer.samlTypo = await refusal(() => createSamlConfigService({ stores: createMemorySamlPropertyStore() }));
const { createPostgresSamlPropertyStore } = await import('@collab-suite/saml-config/postgres');
answer.samlPostgres = await refusal(() =>
  createPostgresSamlPropertyStore({ connectionString: 'postgres://127.0.0.1:1/none' }),
);

const { openRedisEventBus } = await import('@collab-suite/chat-domain/redis');
const bus = await openRedisEventBus({
  url: process.env.CONSUMER_REDIS_URL,
  channelPrefix: 'lib-chat-saml-packaging:',
});
answer.redis = (await bus.checkHealth()).ready;
await bus.close();
answer.ioredis = createRequire(import.meta.url)('ioredis/package.json').version.split('.')[0];

const testing = await import('@collab-suite/chat-domain/testing');
answer.testing = typeof testing.startPrivateRedis;
console.log(JSON.stringify(answer));
