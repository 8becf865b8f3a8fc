/** A feature's part of the OpenAPI document: paths relative to its base path, and schemas. */
export interface OpenApiFragment {
  paths: Record<string, Record<string, unknown>>;
  schemas?: Record<string, unknown>;
  tags?: { name: string; description: string }[];
}

/** The whole OpenAPI 3.1 document. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    description: string;
    license: { name: string; identifier: string };
  };
  servers: { url: string; description?: string }[];
  externalDocs?: { description: string; url: string };
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
  tags: { name: string; description: string }[];
}

function joinPath(basePath: string, path: string): string {
  const base = basePath.replace(/\/+$/, '');
  return `${base}${path.startsWith('/') ? path : `/${path}`}`;
}

const httpMethods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/**
 * An operation id made of the method and the path (`GET /rooms/{roomId}/members` →
 * `getRoomsByRoomIdMembers`), for operations that do not name one: generated clients get method
 * names rather than `operation1`.
 */
export function operationIdFor(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => {
      const parameter = /^\{(.+)\}$/.exec(segment)?.[1];
      const text = parameter === undefined ? segment : `by-${parameter}`;
      return text
        .split(/[^A-Za-z0-9]+/)
        .filter((word) => word !== '')
        .map((word) => word[0]?.toUpperCase() + word.slice(1))
        .join('');
    });
  return `${method.toLowerCase()}${words.join('')}`;
}

/**
 * Completes every operation: an `operationId` when it has none, and `security: []` when it names no
 * security, so that public routes say so rather than inherit nothing by accident.
 */
function completeOperations(paths: OpenApiDocument['paths']): void {
  const used = new Set<string>();
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!httpMethods.includes(method) || typeof operation !== 'object' || operation === null) continue;
      const described = operation as { operationId?: string; security?: unknown };
      let id = described.operationId ?? operationIdFor(method, path);
      for (let suffix = 2; used.has(id); suffix += 1) id = `${operationIdFor(method, path)}${suffix}`;
      used.add(id);
      described.operationId = id;
      described.security ??= [];
    }
  }
}

/** Assembles the features' fragments into one document. */
export function buildOpenApiDocument(
  version: string,
  fragments: { basePath: string; fragment: OpenApiFragment }[],
  options: { publicUrl?: string | undefined; asyncApi?: boolean } = {},
): OpenApiDocument {
  const base = options.publicUrl?.replace(/\/+$/, '');
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: {
      title: 'collab-suite reference server',
      version,
      description:
        'Previews and thumbnails, SAML configuration, chat rooms and meetings.' +
        ' HEAD is answered wherever GET is, with the headers of the GET and no body. A method that a path here does not list is answered 405 with an `Allow` header naming the methods it takes.' +
        (options.asyncApi
          ? ' Live events on the `/events` WebSocket are described in `/asyncapi.json`.'
          : ''),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      base
        ? { url: base, description: 'PUBLIC_URL of this server' }
        : { url: '/', description: 'this server' },
    ],
    ...(options.asyncApi
      ? {
          externalDocs: {
            description: 'The /events WebSocket (every event and its payload), in AsyncAPI 3.0',
            url: `${base ?? ''}/asyncapi.json`,
          },
        }
      : {}),
    paths: {},
    components: {
      schemas: {},
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'ZM_AUTH_TOKEN' },
      },
    },
    tags: [],
  };
  for (const { basePath, fragment } of fragments) {
    for (const [path, item] of Object.entries(fragment.paths)) {
      document.paths[joinPath(basePath, path)] = item;
    }
    Object.assign(document.components.schemas, fragment.schemas ?? {});
    document.tags.push(...(fragment.tags ?? []));
  }
  completeOperations(document.paths);
  return document;
}
