import type { PrivateEjabberd } from '@collab-suite/chat-domain/testing';
import { type ChatFeature, createChatFeature } from '../../src/chat/chat-feature.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

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
