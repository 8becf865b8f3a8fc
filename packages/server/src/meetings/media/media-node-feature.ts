import { Router } from 'express';
import type { FeatureContext, ServerFeature } from '../../feature.js';
import { sfuMetrics } from '../sfu-metrics.js';
import { sfuOptions } from '../sfu-options.js';
import { startMediaNode } from './media-node.js';

/**
 * What a `NODE_ROLES=media` process serves: no routes, only its health entry (the meetings it hosts
 * and its load) and its SFU's series on `/metrics`, while the media node takes its commands over Redis.
 */
export async function createMediaNodeFeature(context: FeatureContext): Promise<ServerFeature> {
  const { config, logger } = context;
  const { cluster } = config;
  if (config.chat.redisUrl === undefined) throw new Error('a media node needs CHAT_REDIS_URL');
  const node = await startMediaNode({
    redisUrl: config.chat.redisUrl,
    prefix: cluster.redisPrefix,
    nodeId: cluster.nodeId,
    address: cluster.mediaAddress,
    capacity: cluster.mediaCapacity,
    sfuOptions: sfuOptions(config),
    heartbeatMs: cluster.heartbeatMs,
    heartbeatTtlMs: cluster.heartbeatMs * 5,
    logger,
  });
  return {
    name: 'media-node',
    basePath: '/',
    router: Router(),
    metrics: sfuMetrics(async () => node.stats()),
    health: [
      {
        name: 'media-node',
        required: true,
        check: async () => {
          const registered = node.registered();
          return { live: true, ready: registered, details: { registered, ...node.describe() } };
        },
      },
    ],
    close: () => node.close(),
  };
}
