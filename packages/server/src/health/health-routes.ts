import { type Request, Router } from 'express';
import type { HealthCheck, HealthStatus } from './health-check.js';

/** A probe slower than this counts as not live and not ready, so a hung dependency cannot hang `/health/`. */
const checkTimeoutMs = 3_000;

/** One dependency as `/health/` reports it. */
export interface DependencyReport extends HealthStatus {
  name: string;
  required: boolean;
}

/** Runs one check within the time limit; a failure or a timeout is a report, never a throw. */
export async function runCheck(check: HealthCheck): Promise<DependencyReport> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<HealthStatus>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({ live: false, ready: false, details: { error: `no answer within ${checkTimeoutMs} ms` } }),
      checkTimeoutMs,
    );
  });
  try {
    const status = await Promise.race([check.check(), timeout]);
    return { name: check.name, required: check.required, ...status };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      name: check.name,
      required: check.required,
      live: false,
      ready: false,
      details: { error: message },
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The health routes, to mount at `/health`: `/health/` (every dependency with name, live, ready,
 * required), `/health/ready/` (200, or the status of the first required dependency that is not
 * ready) and `/health/live/` (200 while the process serves requests).
 */
export function createHealthRouter(
  checks: HealthCheck[],
  options: { canSeeDetails?: (request: Request) => Promise<boolean> } = {},
): Router {
  const router = Router();
  router.get('/', async (request, response) => {
    const [reports, detailed] = await Promise.all([
      Promise.all(checks.map(runCheck)),
      options.canSeeDetails ? options.canSeeDetails(request) : Promise.resolve(true),
    ]);
    const ready = reports.every((dependency) => !dependency.required || dependency.ready);
    // Details (folders, process ids, pool internals, meetings) are for administrators.
    const dependencies = detailed ? reports : reports.map(({ details: _details, ...state }) => state);
    response.json({ live: true, ready, dependencies });
  });
  router.get('/ready/', async (_request, response) => {
    const required = checks.filter((check) => check.required);
    const reports = await Promise.all(required.map(runCheck));
    const failing = required.find((_check, index) => !reports[index]?.ready);
    if (failing) {
      response
        .status(failing.unavailableStatus ?? 502)
        .json({ detail: failing.unavailableMessage ?? `${failing.name} is not ready` });
      return;
    }
    response.json({ ready: true });
  });
  router.get('/live/', (_request, response) => {
    response.json({ live: true });
  });
  return router;
}
