import type { Express, Request } from 'express';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { HealthCheck } from '../health/health-check.js';
import { runCheck } from '../health/health-routes.js';
import { guardedHandler } from '../process/guarded-handler.js';
import { type FeatureMetric, registerFeatureMetrics } from './feature-metric.js';

/**
 * The route a request matched, as the pattern it was declared with (`/rooms/:roomId`; the SAML
 * routes without their mount path), so labels stay few. Not the base URL: by the time the answer is
 * written, an error handler mounted on a path may have changed it.
 */
function routeOf(request: Request): string {
  const pattern = (request.route as { path?: unknown } | undefined)?.path;
  return typeof pattern === 'string' ? pattern : 'unmatched';
}

/** Numbers among a dependency's health details, one level deep (`{ a: 1, b: { c: 2 } }` → a, b_c). */
function numbersOf(details: unknown, prefix = '', depth = 0): [string, number][] {
  if (typeof details !== 'object' || details === null || depth > 1) return [];
  return Object.entries(details).flatMap(([key, value]): [string, number][] => {
    const name = `${prefix}${key}`;
    if (typeof value === 'number' && Number.isFinite(value)) return [[name, value]];
    if (typeof value === 'boolean') return [[name, value ? 1 : 0]];
    return numbersOf(value, `${name}_`, depth + 1);
  });
}

/**
 * The server's Prometheus metrics (prom-client): Node's own (event-loop lag, heap, GC, handles),
 * HTTP request durations by method, route pattern and status, and, read at each scrape from the
 * features' health checks, whether each dependency is ready and every number its details report
 * (render and conversion queues, PDF workers, meetings and participants, event-loop delay...), and
 * the series the features report themselves (SFU traffic, database pools).
 */
export function createServerMetrics(
  app: Express,
  checks: readonly HealthCheck[],
  metrics: readonly FeatureMetric[],
  logger: Logger,
): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerFeatureMetrics(registry, metrics);
  const requests = new Histogram({
    name: 'collab_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status, from arrival to the last byte written.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  app.use((request, response, next) => {
    const end = requests.startTimer();
    response.once(
      'finish',
      guardedHandler(logger, 'request duration metric', () =>
        end({ method: request.method, route: routeOf(request), status: String(response.statusCode) }),
      ),
    );
    next();
  });
  let reports: Promise<Awaited<ReturnType<typeof runCheck>>[]> | undefined;
  // Both gauges read the same reports: one run of the checks per scrape.
  const scrape = () => {
    reports ??= Promise.all(checks.map(runCheck)).finally(() => {
      setImmediate(() => {
        reports = undefined;
      });
    });
    return reports;
  };
  new Gauge({
    name: 'collab_dependency_ready',
    help: 'Whether each dependency of /health/ is ready (1) or not (0).',
    labelNames: ['dependency'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const report of await scrape()) this.set({ dependency: report.name }, report.ready ? 1 : 0);
    },
  });
  new Gauge({
    name: 'collab_dependency_detail',
    help: 'Every number a dependency of /health/ reports in its details (queues, workers, meetings...).',
    labelNames: ['dependency', 'detail'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const report of await scrape()) {
        for (const [detail, value] of numbersOf(report.details))
          this.set({ dependency: report.name, detail }, value);
      }
    },
  });
  return registry;
}
