// The PDF worker entry when preview-core runs from its TypeScript sources (its own tests and the
// server's): tsx compiles pdf-worker.ts inside the worker thread. Builds use dist/pdf-worker.js.
import { tsImport } from 'tsx/esm/api';

const worker = await tsImport('./pdf-worker.ts', import.meta.url);
export default worker.default;
