import {
  normalizeDomain,
  parseGenerateParameters,
  parsePropertyUpdate,
  type SamlConfigService,
  type SamlIssue,
  type ValidationResult,
} from '@collab-suite/saml-config';
import express, { type Request, type Response, Router } from 'express';
import { HttpError } from '../http/http-error.js';
import { booleanParameter, readQuery } from './saml-query.js';

/** Options of {@link createSamlRoutes}. */
export interface SamlRoutesOptions {
  service: SamlConfigService;
  /** Largest request body, in bytes (413 past it). */
  maxBodyBytes: number;
}

const JSON_TYPES = ['application/json', 'application/*+json'];
// Never text/plain: a form on another site can send it without a preflight.
const XML_TYPES = ['application/xml', 'text/xml', 'application/*+xml'];
const GENERATE_PARAMETERS = [
  'days',
  'digest',
  'encryption',
  'country',
  'state',
  'location',
  'organization',
  'organizationalUnit',
];

function domainOf(request: Request): string {
  return String(request.params.domain ?? '');
}

/** Refuses (415) a body the parsers did not take (wrong Content-Type) instead of ignoring it. */
function requireParsedBody(request: Request, accepted: string): void {
  const length = Number(request.headers['content-length'] ?? 0);
  const chunked = request.headers['transfer-encoding'] !== undefined;
  if (request.body === undefined && (length > 0 || chunked)) {
    throw new HttpError(
      415,
      `expected Content-Type ${accepted} but received ${JSON.stringify(request.headers['content-type'] ?? 'none')}`,
    );
  }
}

function sendWarnings(response: Response, warnings: readonly SamlIssue[]): void {
  if (warnings.length > 0)
    response.setHeader('X-Saml-Warnings', [...new Set(warnings.map((warning) => warning.code))].join(', '));
}

function sendValidation(response: Response, result: ValidationResult, details: boolean): void {
  sendWarnings(response, result.warnings);
  const idpNotAfter = result.certificates.idp?.notAfter;
  if (idpNotAfter !== undefined) response.setHeader('X-Saml-Idp-Cert-Not-After', idpNotAfter);
  const report = { errors: result.errors, warnings: result.warnings, certificates: result.certificates };
  if (!result.ok) {
    response.status(400).json({ ok: false, error: result.summary, code: 'validation_failed', ...report });
    return;
  }
  response.json(details ? { ok: true, properties: result.properties, ...report } : result.properties);
}

/**
 * The SAML configuration routes (relative to the feature's base path): `/saml/{domain}` (GET, PUT,
 * POST import, DELETE), `/saml-validate[/{domain}]`, `/saml-generate/{domain}` and
 * `/saml-metadata/{domain}`. Authentication is the caller's job.
 */
export function createSamlRoutes(options: SamlRoutesOptions): Router {
  const { service } = options;
  const router = Router();
  const json = express.json({
    limit: options.maxBodyBytes,
    strict: true,
    type: JSON_TYPES,
  });
  // Imports and validations hand JSON to the service as text too: it reads documents over 64 KiB on
  // a worker thread, where parsing and checking a 1 MiB map of thousands of keys costs the event
  // loop nothing.
  const documentText = express.text({
    limit: options.maxBodyBytes,
    type: [...JSON_TYPES, ...XML_TYPES],
    defaultCharset: 'utf-8',
  });

  router.get('/saml/:domain', async (request, response) => {
    const query = readQuery(request.query, ['keys', 'raw']);
    response.json(
      await service.getProperties(domainOf(request), {
        keys: query.keys,
        raw: booleanParameter(query, 'raw'),
      }),
    );
  });

  router.put('/saml/:domain', json, async (request, response) => {
    readQuery(request.query, []);
    requireParsedBody(request, 'application/json');
    // The domain is checked before the body, as the service does.
    const domain = normalizeDomain(domainOf(request));
    response.json(await service.updateProperties(domain, parsePropertyUpdate(request.body ?? {})));
  });

  router.post('/saml/:domain', documentText, async (request, response) => {
    const query = readQuery(request.query, ['url', 'allowUnsecure', 'validate', 'entityId']);
    requireParsedBody(request, 'application/json or application/xml');
    const result = await service.importProperties(domainOf(request), {
      body: request.body,
      url: query.url,
      allowUnsecure: booleanParameter(query, 'allowUnsecure'),
      validate: booleanParameter(query, 'validate'),
      entityId: query.entityId,
    });
    sendWarnings(response, result.warnings);
    response.json(result.properties);
  });

  router.delete('/saml/:domain', async (request, response) => {
    const query = readQuery(request.query, ['keys']);
    response.json(await service.deleteProperties(domainOf(request), { keys: query.keys }));
  });

  router.get('/saml-validate/:domain', async (request, response) => {
    const query = readQuery(request.query, ['details']);
    sendValidation(
      response,
      await service.validateDomain(domainOf(request)),
      booleanParameter(query, 'details') === true,
    );
  });

  router.post('/saml-validate', documentText, async (request, response) => {
    const query = readQuery(request.query, ['url', 'allowUnsecure', 'entityId', 'details']);
    requireParsedBody(request, 'application/json or application/xml');
    const result = await service.validateDocument({
      body: request.body,
      url: query.url,
      allowUnsecure: booleanParameter(query, 'allowUnsecure'),
      entityId: query.entityId,
    });
    sendValidation(response, result, booleanParameter(query, 'details') === true);
  });

  // Takes no body; a client that sends JSON anyway ({}) is not refused, a form's body is (415).
  const ignoredJson = express.json({ limit: '16kb', type: JSON_TYPES });
  router.post('/saml-generate/:domain', ignoredJson, async (request, response) => {
    requireParsedBody(request, 'none (this operation takes no body)');
    const query = readQuery(request.query, GENERATE_PARAMETERS);
    const domain = normalizeDomain(domainOf(request));
    const result = await service.generateCertificate(domain, parseGenerateParameters(query));
    sendWarnings(response, result.warnings);
    response.json(result.properties);
  });

  router.get('/saml-metadata/:domain', async (request, response) => {
    readQuery(request.query, []);
    const { xml, warnings } = await service.spMetadata(domainOf(request));
    sendWarnings(response, warnings);
    response.type('application/samlmetadata+xml; charset=utf-8').send(xml);
  });

  return router;
}
