import { parentPort, workerData } from 'node:worker_threads';
import type { SfuOptionsInput } from '@collab-suite/webrtc-sfu';
import { createMediaHost } from './media-host.js';
import { isMediaCommand, type MediaHostMessage } from './media-protocol.js';

// The media worker thread of a process that runs both roles: the SFU's packets, mixing and timers
// run here, on an event loop of their own, and the API thread drives them by message.
if (parentPort === null) throw new Error('media-worker runs as a worker thread');
const port = parentPort;
const host = createMediaHost(workerData as SfuOptionsInput);
const send = (message: MediaHostMessage) => port.postMessage(message);
host.onEvent((event) => send({ kind: 'event', event }));
port.on('message', (message: unknown) => {
  if (message === 'close') {
    void host.close().then(() => port.close());
    return;
  }
  if (message === 'stats') {
    send({ kind: 'stats', stats: host.stats() });
    return;
  }
  if (!isMediaCommand(message)) return;
  void host.run(message).then((reply) => {
    port.postMessage(reply);
    send({ kind: 'load', load: host.load() });
  });
});
