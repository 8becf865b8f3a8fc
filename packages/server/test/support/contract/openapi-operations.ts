/** The parts of an OpenAPI 3.1 document the contract test reads. */
export type JsonSchema = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema: JsonSchema;
  explode?: boolean;
  allowEmptyValue?: boolean;
}

export interface MediaDescription {
  schema?: JsonSchema;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}

export interface ResponseDescription {
  description?: string;
  headers?: Record<string, { required?: boolean; schema?: JsonSchema }>;
  content?: Record<string, MediaDescription>;
}

export interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaDescription> };
  responses: Record<string, ResponseDescription>;
  security?: unknown[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> };
}

/** One operation of the document with its path and method. */
export interface DocumentedOperation {
  path: string;
  method: string;
  operation: Operation;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** Every operation of the document, in document order. */
export function documentedOperations(document: OpenApiDocument): DocumentedOperation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
}

/**
 * `schema` with every `#/components/schemas/...` reference replaced by the schema it names (the
 * document has no recursive schemas), so that generators and validators need no resolver.
 */
export function inlineReferences(schema: unknown, document: OpenApiDocument, depth = 0): unknown {
  if (depth > 32) throw new Error('the OpenAPI document has a recursive schema');
  if (Array.isArray(schema)) return schema.map((entry) => inlineReferences(entry, document, depth + 1));
  if (typeof schema !== 'object' || schema === null) return schema;
  const reference = (schema as { $ref?: unknown }).$ref;
  if (typeof reference === 'string') {
    const name = reference.replace('#/components/schemas/', '');
    const target = document.components.schemas[name];
    if (target === undefined) throw new Error(`unresolved reference ${reference}`);
    return inlineReferences(target, document, depth + 1);
  }
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, inlineReferences(value, document, depth + 1)]),
  );
}

/** True when the media type `actual` (a Content-Type, parameters ignored) falls in the range `range`. */
export function mediaTypeMatches(range: string, actual: string): boolean {
  const [type = '', subtype = ''] = actual.split(';')[0]?.trim().toLowerCase().split('/') ?? [];
  const [rangeType = '', rangeSubtype = ''] = range.toLowerCase().split('/');
  if (rangeType === '*') return true;
  if (rangeType !== type) return false;
  return rangeSubtype === '*' || rangeSubtype === subtype;
}

/** The documented response for `status`: its own entry, its range (`4XX`), or `default`. */
export function documentedResponse(operation: Operation, status: number): ResponseDescription | undefined {
  return (
    operation.responses[String(status)] ??
    operation.responses[`${String(status)[0]}XX`] ??
    operation.responses.default
  );
}
