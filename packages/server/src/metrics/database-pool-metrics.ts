import type { FeatureMetric } from './feature-metric.js';

/** A pg pool's connections, as the PostgreSQL stores of chat-domain and saml-config report them. */
interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

function poolStatsOf(store: object): (() => PoolStats) | undefined {
  const candidate = (store as { poolStats?: unknown }).poolStats;
  return typeof candidate === 'function' ? () => candidate.call(store) as PoolStats : undefined;
}

/**
 * The connection pool series of a store, labelled with `database` (`chat`, `saml`): open, idle and
 * waiting. Stores without a pool (SQLite, in memory) report nothing.
 */
export function databasePoolMetrics(database: string, store: object): FeatureMetric[] {
  const stats = poolStatsOf(store);
  if (stats === undefined) return [];
  const labelNames = ['database'] as const;
  const sample = (pick: (pool: PoolStats) => number) => () => [
    { labels: { database }, value: pick(stats()) },
  ];
  return [
    {
      name: 'collab_database_pool_connections',
      help: 'Connections the PostgreSQL pool holds open, idle or in use.',
      kind: 'gauge',
      labelNames,
      read: sample((pool) => pool.total),
    },
    {
      name: 'collab_database_pool_idle_connections',
      help: 'Open connections of the PostgreSQL pool that no query uses.',
      kind: 'gauge',
      labelNames,
      read: sample((pool) => pool.idle),
    },
    {
      name: 'collab_database_pool_waiting_requests',
      help: 'Queries and transactions waiting for a connection of the PostgreSQL pool.',
      kind: 'gauge',
      labelNames,
      read: sample((pool) => pool.waiting),
    },
  ];
}
