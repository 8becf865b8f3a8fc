import {
  createLibreOfficeConverter,
  createRemoteConverter,
  type DocumentConverter,
  PreviewError,
} from '@collab-suite/preview-core';
import { ConfigError, type ServerConfig } from '../config.js';
import type { HealthCheck } from '../health/health-check.js';

/** A converter for DOCUMENT_CONVERTER=none: always unavailable, and says why. */
function disabledConverter(): DocumentConverter {
  const reason = 'document previews are turned off (DOCUMENT_CONVERTER=none)';
  return {
    convert: async () => {
      throw new PreviewError('CONVERTER_UNAVAILABLE', reason, { details: { retryAfterSeconds: 3600 } });
    },
    status: () => ({
      name: 'none',
      available: false,
      reason,
      instances: 0,
      busy: 0,
      queued: 0,
      restarts: 0,
      conversions: 0,
      failures: 0,
      pool: [],
    }),
    close: async () => {},
  };
}

/**
 * The document converter the configuration asks for: a warm local LibreOffice pool (default), a
 * remote Collabora-compatible converter, or none.
 * @throws ConfigError when `remote` is chosen without DOCUMENT_CONVERTER_URL.
 */
export function documentConverterFromConfig(config: ServerConfig): DocumentConverter {
  const { document } = config;
  if (document.converter === 'none') return disabledConverter();
  if (document.converter === 'remote') {
    if (!document.converterUrl) {
      throw new ConfigError(
        'DOCUMENT_CONVERTER=remote needs DOCUMENT_CONVERTER_URL (the converter base URL)',
      );
    }
    return createRemoteConverter({
      baseUrl: document.converterUrl,
      timeoutMs: document.conversionTimeoutMs,
      defaultLocale: document.defaultLocale,
    });
  }
  const { libreOffice } = document;
  return createLibreOfficeConverter({
    sofficePath: libreOffice.sofficePath,
    ...(libreOffice.pythonPath ? { pythonPath: libreOffice.pythonPath } : {}),
    ...(libreOffice.instances ? { instances: libreOffice.instances } : {}),
    maxQueued: libreOffice.maxQueued,
    restartAfterConversions: libreOffice.restartAfterConversions,
    conversionTimeoutMs: document.conversionTimeoutMs,
    defaultLocale: document.defaultLocale,
  });
}

/**
 * `document-converter` on `/health/`: its state (instances, busy, restarts...). Required unless
 * turned off, so `/health/ready/` answers 429 while document previews are offline.
 */
export function createConverterHealthCheck(
  converter: DocumentConverter,
  extra: () => Record<string, unknown>,
): HealthCheck {
  const disabled = converter.status().name === 'none';
  return {
    name: 'document-converter',
    required: !disabled,
    unavailableStatus: 429,
    unavailableMessage: 'the document converter is unavailable; document preview is offline',
    check: async () => {
      const status = converter.probe ? await converter.probe() : converter.status();
      return { live: status.available, ready: status.available, details: { ...status, ...extra() } };
    },
  };
}
