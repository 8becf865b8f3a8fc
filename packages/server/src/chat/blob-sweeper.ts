import type { ChatService } from '@collab-suite/chat-domain';
import type { Logger } from 'pino';

/** A running sweep of upload leftovers; `stop()` waits for a sweep in progress. */
export interface BlobSweeper {
  stop(): Promise<void>;
}

/**
 * Sweeps the blob store now and then every `seconds` (0: never): temporary files and blobs without
 * a row, last written more than `seconds` ago, which a process killed during an upload leaves.
 */
export function startBlobSweeper(service: ChatService, seconds: number, logger: Logger): BlobSweeper {
  if (seconds === 0) return { stop: async () => {} };
  let running: Promise<void> = Promise.resolve();
  const sweep = () => {
    running = service.sweepBlobs({ graceMs: seconds * 1000 }).then(
      (result) => {
        if (result.temporaries + result.unreferenced > 0) logger.info(result, 'swept upload leftovers');
      },
      (error: unknown) => logger.error({ err: error }, 'the sweep of upload leftovers failed'),
    );
  };
  sweep();
  const timer = setInterval(sweep, seconds * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
