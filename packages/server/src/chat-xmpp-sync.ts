#!/usr/bin/env node
import { isChatError } from '@collab-suite/chat-domain';
import pino from 'pino';
import { openChatStore } from './chat/chat-ports.js';
import { createXmppMirrorFromConfig } from './chat/xmpp-mirror-part.js';
import { ConfigError, loadConfig } from './config.js';

const usage = 'usage: pnpm chat-xmpp-sync   (brings ejabberd in line with the chat database)';

/**
 * Resyncs the XMPP mirror: every room of the chat database becomes (or stays) a MUC room with the
 * right title, affiliations and privacy options (drifted ones set back and listed), and MUC rooms the database lacks are destroyed. Prints what changed
 * (nothing on a second run) and how many operations still wait in the outbox for the server.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((arg) => arg !== '--');
  if (args.length > 0) {
    process.stderr.write(`${usage}\n`);
    process.exit(64);
  }
  const config = loadConfig();
  const xmpp = config.chat.xmpp;
  if (xmpp === undefined) {
    process.stderr.write('CHAT_XMPP_URL is not set: there is no XMPP mirror to sync\n');
    process.exit(64);
  }
  const logger = pino({ level: 'silent' });
  const store = await openChatStore(config.chat.databaseUrl, config.database);
  try {
    const mirror = createXmppMirrorFromConfig(xmpp, store, logger);
    const report = await mirror.resync();
    const pending = await store.countMirrorOperations();
    const changed = report.changedRoomIds.length;
    process.stdout.write(
      `${JSON.stringify({ ...report, outboxPending: pending })}\n` +
        `${changed === 0 ? 'nothing to do' : `changed ${changed} room(s)`}: checked ${report.roomsChecked}, ` +
        `created ${report.roomsCreated}, destroyed ${report.roomsDestroyed}, renamed ${report.roomsRenamed}, ` +
        `affiliations ${report.affiliationsChanged}, subscriptions ${report.subscriptionsChanged}, ` +
        `options repaired ${report.optionsRepaired.length}` +
        `${report.optionsRepaired.length > 0 ? ` (${report.optionsRepaired.join(', ')})` : ''}\n`,
    );
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => {
  const message =
    error instanceof ConfigError || isChatError(error)
      ? error.message
      : error instanceof Error
        ? error.message
        : String(error);
  process.stderr.write(`chat-xmpp-sync failed: ${message}\n`);
  process.exit(1);
});
