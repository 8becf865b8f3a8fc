import type { ChainableCommander } from 'ioredis';

/**
 * Sets the owner of a queue to `ARGV[1]` with the time of Redis's clock in milliseconds, and returns
 * that time: one clock orders every claim, whichever node made it.
 */
const CLAIM_SCRIPT = `
local now = redis.call('TIME')
local claimedAt = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. claimedAt, 'PX', ARGV[2])
return claimedAt`;

/**
 * Sets the owner of a queue to `ARGV[1]` claimed at `ARGV[2]` unless the key holds a claim as recent
 * or more (a value without a time was written by a node of an older version since: it is kept).
 * Returns 1 when it set the key.
 */
const REASSERT_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current then
  local at = tonumber(string.match(current, ' (%d+)$'))
  if at == nil or at >= tonumber(ARGV[2]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2], 'PX', ARGV[3])
return 1`;

/**
 * Queues in `transaction` the claim of the queue whose owner key is `ownerKey` by `nodeId`; its
 * reply is the claim's time (Redis's clock, in milliseconds).
 */
export function claimQueueOwner(
  transaction: ChainableCommander,
  ownerKey: string,
  nodeId: string,
  ttlMs: number,
): ChainableCommander {
  return transaction.eval(CLAIM_SCRIPT, 1, ownerKey, nodeId, ttlMs);
}

/**
 * Queues in `transaction` the owner of a queue as `nodeId` recorded it at `claimedAt`, where Redis
 * lost it or holds an older claim: after Redis restarted empty, every node that claimed the queue
 * says so again, in any order, and the latest claim wins.
 */
export function reassertQueueOwner(
  transaction: ChainableCommander,
  ownerKey: string,
  nodeId: string,
  claimedAt: number,
  ttlMs: number,
): ChainableCommander {
  return transaction.eval(REASSERT_SCRIPT, 1, ownerKey, nodeId, claimedAt, ttlMs);
}

/**
 * The node id in the value of a queue's owner key (`<nodeId> <claimedAtMs>`, or a bare node id as
 * nodes of an older version wrote it); null for an absent key.
 */
export function queueOwnerOf(value: string | null): string | null {
  if (value === null) return null;
  const match = /^(.*) \d+$/.exec(value);
  return match?.[1] ?? value;
}
