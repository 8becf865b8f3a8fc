import { healthDependency, type TestServer } from '../support/test-server.js';

/** The `document-converter` dependency of `/health/` (as an administrator sees it). */
export interface ConverterDetails {
  available: boolean;
  reason?: string;
  busy: number;
  restarts: number;
  conversions: number;
  pool: { pid?: number; state: string }[];
  cache: { entries: number; bytes: number; hits: number };
  failures: { remembered: number; blamed: number; refused: number };
}

/** What `/health/` says of the server's document converter now. */
export async function converterDetails(server: TestServer): Promise<ConverterDetails> {
  return (await healthDependency<ConverterDetails>(server.url, 'document-converter')).details;
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 25));

/** Waits (up to a minute: LibreOffice starts in the background) until `ready` holds of the converter. */
export async function untilConverter(
  server: TestServer,
  ready: (details: ConverterDetails) => boolean,
  what: string,
): Promise<ConverterDetails> {
  for (let tries = 0; tries < 2400; tries += 1) {
    const details = await converterDetails(server);
    if (ready(details)) return details;
    await pause();
  }
  throw new Error(`the LibreOffice pool never ${what}`);
}

/** Waits until every instance is idle, after `restarts` restarts when given. */
export async function untilPoolIdle(server: TestServer, restarts?: number): Promise<void> {
  await untilConverter(
    server,
    (details) =>
      (restarts === undefined || details.restarts === restarts) &&
      details.pool.every((instance) => instance.state === 'idle'),
    `became idle${restarts === undefined ? '' : ` after ${restarts} restarts`}`,
  );
}

/** Waits until an instance is converting. */
export async function untilPoolBusy(server: TestServer): Promise<void> {
  await untilConverter(server, (details) => details.busy > 0, 'started converting');
}

/** The process group of the first instance, once it runs. */
export async function instanceGroup(server: TestServer): Promise<number> {
  const details = await untilConverter(server, (found) => found.pool[0]?.pid !== undefined, 'started');
  return details.pool[0]?.pid ?? 0;
}
