import { describe, expect, it } from 'vitest';
import { startClusterNode } from '../cluster/cluster-nodes.js';

describe('MANAGEMENT_PORT', () => {
  it('serves /metrics and the detailed /health/ on its own port, and takes /metrics off the public one', async () => {
    const node = await startClusterNode('management', { MANAGEMENT_PORT: '0' });
    try {
      const port = /"port":(\d+)[^\n]*"msg":"management listening"/.exec(node.output())?.[1];
      expect(port).toBeDefined();
      const management = `http://127.0.0.1:${port}`;
      const metrics = await fetch(`${management}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('collab_dependency_ready');
      type Health = { dependencies: { name: string; details?: unknown }[] };
      const detailed = (await (await fetch(`${management}/health/`)).json()) as Health;
      expect(detailed.dependencies.find((entry) => entry.name === 'storage')?.details).toMatchObject({
        kind: 'disk',
      });
      expect((await fetch(`${node.url}/metrics`)).status).toBe(404);
      const public_ = (await (await fetch(`${node.url}/health/`)).json()) as Health;
      expect(public_.dependencies.every((entry) => entry.details === undefined)).toBe(true);
    } finally {
      await node.kill('SIGTERM');
    }
  });
});
