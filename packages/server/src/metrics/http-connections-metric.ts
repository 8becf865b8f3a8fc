import type { Server } from 'node:http';
import type { FeatureMetric } from './feature-metric.js';

/**
 * `collab_http_open_connections`: the TCP connections of the public HTTP server now, upgraded
 * WebSockets included; nothing before `server` is known (the app is attached to it at start).
 */
export function httpConnectionsMetric(server: () => Server | undefined): FeatureMetric {
  return {
    name: 'collab_http_open_connections',
    help: 'Open TCP connections of the public HTTP server, WebSockets included.',
    kind: 'gauge',
    read: () =>
      new Promise((resolve) => {
        const listening = server();
        if (listening === undefined) return resolve([]);
        listening.getConnections((error, count) => resolve(error ? [] : [{ value: count }]));
      }),
  };
}
