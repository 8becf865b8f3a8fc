import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type PrivateEjabberd,
  type PrivateEjabberdOptions,
  startPrivateEjabberd,
} from '@collab-suite/chat-domain/testing';
import { type ChatFeature, createChatFeature } from '../../src/chat/chat-feature.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** The ejabberd configuration that docs/deployment/ejabberd.yml tells operators to install. */
export const documentedEjabberdFile = fileURLToPath(
  new URL('../../../../docs/deployment/ejabberd.yml', import.meta.url),
);

/** A private ejabberd running the documented configuration, only names, ports and paths changed. */
export function startDocumentedEjabberd(options: PrivateEjabberdOptions): Promise<PrivateEjabberd> {
  return startPrivateEjabberd({
    ...options,
    documentedConfiguration: readFileSync(documentedEjabberdFile, 'utf8'),
  });
}

/** The environment that points the chat feature at a private ejabberd. */
export function xmppEnvironment(ejabberd: PrivateEjabberd): Record<string, string> {
  return {
    CHAT_XMPP_URL: ejabberd.apiUrl,
    CHAT_XMPP_DOMAIN: ejabberd.domain,
    CHAT_XMPP_MUC_DOMAIN: ejabberd.mucDomain,
  };
}

/** A test server with the chat feature alone, on `env`; the feature is returned to reach its mirror. */
export async function startChatServer(
  env: Record<string, string>,
): Promise<{ server: TestServer; feature: ChatFeature }> {
  let feature: ChatFeature | undefined;
  const server = await startTestServer({
    env,
    features: async (context) => {
      feature = await createChatFeature(context);
      return [feature];
    },
  });
  if (!feature) throw new Error('the chat feature was not created');
  return { server, feature };
}
