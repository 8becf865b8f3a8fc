// The media worker entry when the server runs from its TypeScript sources (its tests): tsx compiles
// media-worker.ts inside the worker thread. Builds use dist/media-worker.js.
import { register } from 'tsx/esm/api';

register();
await import('./media-worker.ts');
