// The reader thread's entry when saml-config runs from its TypeScript sources (its own tests and the
// server's): tsx compiles read-document-worker.ts inside the worker thread. Builds use
// dist/read-document-worker.js.
import { tsImport } from 'tsx/esm/api';

const worker = await tsImport('./read-document-worker.ts', import.meta.url);
export default worker.default;
