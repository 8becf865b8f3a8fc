// The `@collab-suite/chat-domain/redis` entry: needs ioredis (an optional peer dependency).
export { openRedisEventBus, type RedisEventBusOptions } from './adapters/redis-event-bus.js';
export { redisEventBusOptionsSchema } from './adapters/redis-event-bus-options.js';
