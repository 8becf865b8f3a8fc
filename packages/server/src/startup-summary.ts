import type { Logger } from 'pino';
import type { ServerConfig } from './config.js';
import { redactRequestTarget } from './http/redact.js';
import { locationOf } from './startup-error.js';

/** Where a database setting points: a SQLite file, or PostgreSQL without credentials. */
function database(url: string): { engine: string; where: string } {
  return /^postgres(ql)?:\/\//i.test(url)
    ? { engine: 'postgresql', where: locationOf(url) }
    : { engine: 'sqlite', where: redactRequestTarget(url) };
}

/**
 * Logs one line per subsystem at start-up, from the configuration: which engine each one uses and
 * where (never credentials), so an operator reads what this process runs from its first lines.
 */
export function logStartupSummary(config: ServerConfig, logger: Logger): void {
  const { cluster, chat, meetings } = config;
  const media = {
    roles: cluster.roles.join(','),
    nodeId: cluster.nodeId,
    udpPorts: meetings.portRange ? meetings.portRange.join('-') : 'any free port',
    announcedAddresses: meetings.announcedAddresses,
  };
  if (!cluster.roles.includes('api')) {
    logger.info(
      { ...media, capacity: cluster.mediaCapacity, redis: locationOf(chat.redisUrl ?? '') },
      'media node',
    );
    return;
  }
  const { storage, document, preview } = config;
  logger.info(
    {
      storage: storage.url
        ? { kind: 'http', where: locationOf(storage.url) }
        : { kind: 'disk', where: storage.directory },
      converter:
        document.converter === 'remote'
          ? { kind: 'remote', where: locationOf(document.converterUrl ?? '') }
          : document.converter === 'libreoffice'
            ? {
                kind: 'libreoffice',
                soffice: document.libreOffice.sofficePath,
                instances: document.libreOffice.instances ?? 'one per core',
              }
            : { kind: 'none' },
      pdfWorkers: preview.pdfWorkers ?? 'one per core',
    },
    'previews',
  );
  logger.info(
    {
      database: database(chat.databaseUrl),
      events: chat.redisUrl ? { kind: 'redis', where: locationOf(chat.redisUrl) } : { kind: 'in-process' },
      blobs: chat.blobDirectory,
      messages: chat.xmpp
        ? {
            kind: 'xmpp',
            api: locationOf(chat.xmpp.apiUrl),
            domain: chat.xmpp.domain,
            muc: chat.xmpp.mucDomain,
          }
        : { kind: 'events' },
    },
    'chat',
  );
  logger.info(
    {
      ...media,
      placement: cluster.roles.includes('media') ? 'worker thread of this process' : 'media nodes over Redis',
    },
    'meetings media',
  );
  logger.info({ database: database(config.saml.databaseUrl) }, 'saml');
}
