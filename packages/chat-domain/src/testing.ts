// The `@collab-suite/chat-domain/testing` entry: plain helpers usable from any test runner (nothing
// here imports vitest). The vitest conformance suites are in `@collab-suite/chat-domain/testing/vitest`.
export {
  type EjabberdConfigurationInput,
  ejabberdConfiguration,
  ejabberdConfigurationFromDocument,
  hs256JsonWebKey,
} from './testing/ejabberd-configuration.js';
export {
  attachmentFixture,
  eventually,
  memberFixture,
  roomFixture,
  waitUntil,
} from './testing/fixtures.js';
export { freeLoopbackPort } from './testing/free-port.js';
export { meetingFixture, participantFixture } from './testing/meeting-fixtures.js';
export {
  type PrivateEjabberd,
  type PrivateEjabberdOptions,
  startPrivateEjabberd,
} from './testing/private-ejabberd.js';
export { type PrivatePostgres, startPrivatePostgres } from './testing/private-postgres.js';
export { type PrivateRedis, type PrivateRedisOptions, startPrivateRedis } from './testing/private-redis.js';
