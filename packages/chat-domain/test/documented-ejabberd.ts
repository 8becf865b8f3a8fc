import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type PrivateEjabberd,
  type PrivateEjabberdOptions,
  startPrivateEjabberd,
} from '../src/testing/private-ejabberd.js';

/** The ejabberd configuration that docs/deployment/ejabberd.yml tells operators to install. */
const documentedEjabberdFile = fileURLToPath(
  new URL('../../../docs/deployment/ejabberd.yml', import.meta.url),
);

/** A private ejabberd running the documented configuration, only names, ports and paths changed. */
export function startDocumentedEjabberd(options: PrivateEjabberdOptions): Promise<PrivateEjabberd> {
  return startPrivateEjabberd({
    ...options,
    documentedConfiguration: readFileSync(documentedEjabberdFile, 'utf8'),
  });
}
