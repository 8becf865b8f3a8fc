/** A feature's part of the OpenAPI document: paths relative to its base path, and schemas. */
export interface OpenApiFragment {
  paths: Record<string, Record<string, unknown>>;
  schemas?: Record<string, unknown>;
  tags?: { name: string; description: string }[];
}

/** The whole OpenAPI 3.1 document. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
  tags: { name: string; description: string }[];
}

function joinPath(basePath: string, path: string): string {
  const base = basePath.replace(/\/+$/, '');
  return `${base}${path.startsWith('/') ? path : `/${path}`}`;
}

/** Assembles the features' fragments into one document. */
export function buildOpenApiDocument(
  version: string,
  fragments: { basePath: string; fragment: OpenApiFragment }[],
): OpenApiDocument {
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: {
      title: 'collab-suite reference server',
      version,
      description: 'Previews and thumbnails, SAML configuration, chat rooms and meetings.',
    },
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
  return document;
}
