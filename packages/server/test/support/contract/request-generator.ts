import { createGeneratorSync } from 'json-schema-faker';
import {
  type DocumentedOperation,
  inlineReferences,
  type JsonSchema,
  type OpenApiDocument,
  type Parameter,
} from './openapi-operations.js';
import { type SchemaChecker, typedParameterValue } from './schema-checker.js';

/** A body to send: JSON, multipart fields, or bytes, with its content type. */
export type RequestBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'multipart'; files: { field: string; bytes: Uint8Array; fileName: string }[] }
  | { kind: 'bytes'; contentType: string; bytes: Uint8Array };

/** One request made from the document: what it is, and whether the document says it is valid. */
export interface ContractRequest {
  kind: 'example' | 'valid' | 'invalid';
  /** For invalid requests: what breaks the document's rules. */
  breaks?: string;
  path: string;
  method: string;
  query: [string, string][];
  headers: Record<string, string>;
  body?: RequestBody;
}

/** Bytes for the examples of upload bodies: a real file where the operation takes one. */
export interface ExampleFiles {
  image: Uint8Array;
  pdf: Uint8Array;
}

/** A seeded source of choices (mulberry32). */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    below: (limit: number) => Math.floor(next() * limit),
    chance: (probability: number) => next() < probability,
    pick: <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T,
    bytes: (length: number) => Uint8Array.from({ length }, () => Math.floor(next() * 256)),
  };
}
export type SeededRandom = ReturnType<typeof seededRandom>;

/** Printable ASCII only: what an HTTP header carries as it is (no folding, no trimming). */
const HEADER_TEXT = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

function wireText(value: unknown): string | string[] {
  if (Array.isArray(value)) return value.map((entry) => String(entry));
  return String(value);
}

/**
 * Makes requests from the operations of a document: documented examples, values generated from the
 * schemas by json-schema-faker (seeded), and values that break one rule of the document each.
 */
export function createRequestGenerator(options: {
  document: OpenApiDocument;
  checker: SchemaChecker;
  seed: number;
  files: ExampleFiles;
  /**
   * Path values of things that exist (a room of the caller, its attachment...), by parameter name:
   * examples use them, generated requests half of the time, so that operations answer more than
   * 404. DELETE requests never use them, so that they stay.
   */
  existing?: Record<string, string>;
}) {
  const { document, checker, files } = options;
  const random = seededRandom(options.seed);
  const faker = createGeneratorSync({
    seed: options.seed,
    maxItems: 3,
    optionalsProbability: 0.5,
  });
  const inlined = new WeakMap<object, JsonSchema>();
  const schemaOf = (schema: JsonSchema): JsonSchema => {
    let result = inlined.get(schema);
    if (result === undefined) {
      result = inlineReferences(schema, document) as JsonSchema;
      inlined.set(schema, result);
    }
    return result;
  };

  /** A generated value valid against `schema`, or undefined when the generator missed five times. */
  const validValue = (schema: JsonSchema, wire?: (value: unknown) => unknown): unknown => {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      let value: unknown;
      try {
        value = faker.generate(schema as never);
      } catch {
        continue;
      }
      const sent = wire ? wire(value) : value;
      if (sent !== undefined && checker.isValid(schema, sent)) return value;
    }
    return undefined;
  };

  const parameterValue = (
    parameter: Parameter,
    example: boolean,
    method: string,
  ): string | string[] | undefined => {
    const schema = schemaOf(parameter.schema);
    const existing = parameter.in === 'path' ? options.existing?.[parameter.name] : undefined;
    if (existing !== undefined && method !== 'delete' && (example || random.chance(0.5))) return existing;
    if (example) {
      const documented = (schema.examples as unknown[] | undefined)?.[0] ?? schema.default;
      if (documented !== undefined) return wireText(documented);
    }
    const value = validValue(schema, (generated) => {
      const text = wireText(generated);
      if (parameter.in === 'header' && (Array.isArray(text) || !HEADER_TEXT.test(text))) return undefined;
      if (parameter.in === 'path' && (Array.isArray(text) || text === '')) return undefined;
      return typedParameterValue(schema, text);
    });
    return value === undefined ? undefined : wireText(value);
  };

  const exampleBytes = (operation: DocumentedOperation): Uint8Array =>
    operation.path.includes('/pdf/') ? files.pdf : files.image;

  const body = (operation: DocumentedOperation, example: boolean): RequestBody | undefined => {
    const content = operation.operation.requestBody?.content;
    if (content === undefined) return undefined;
    if (!operation.operation.requestBody?.required && !example && random.chance(0.3)) return undefined;
    const [contentType, media] = Object.entries(content)[0] ?? [];
    if (contentType === undefined || media === undefined) return undefined;
    const schema = media.schema ? schemaOf(media.schema) : {};
    if (contentType === 'multipart/form-data') {
      const fields = Object.keys((schema.properties ?? {}) as object);
      return {
        kind: 'multipart',
        files: fields.map((field) => ({
          field,
          bytes: example ? exampleBytes(operation) : random.bytes(random.below(64)),
          fileName: 'upload.bin',
        })),
      };
    }
    if (contentType === 'application/json') {
      const documented = media.example ?? Object.values(media.examples ?? {})[0]?.value;
      if (example && documented !== undefined) return { kind: 'json', value: documented };
      const value = validValue(schema);
      return value === undefined ? undefined : { kind: 'json', value };
    }
    return {
      kind: 'bytes',
      contentType,
      bytes: example ? files.image : random.bytes(random.below(64)),
    };
  };

  /** A request whose every part is documented as valid (the examples where there are some). */
  function validRequest(operation: DocumentedOperation, example: boolean): ContractRequest | undefined {
    let path = operation.path;
    const query: [string, string][] = [];
    const headers: Record<string, string> = {};
    for (const parameter of operation.operation.parameters ?? []) {
      if (!parameter.required && !(example && parameter.in === 'path') && random.chance(0.5)) continue;
      const value = parameterValue(parameter, example, operation.method);
      if (value === undefined) {
        if (parameter.required) return undefined;
        continue;
      }
      if (parameter.in === 'path')
        path = path.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
      else if (parameter.in === 'query')
        for (const entry of Array.isArray(value) ? value : [value]) query.push([parameter.name, entry]);
      else if (parameter.in === 'header') headers[parameter.name] = String(value);
    }
    const requestBody = body(operation, example);
    if (operation.operation.requestBody?.required && requestBody === undefined) return undefined;
    return {
      kind: example ? 'example' : 'valid',
      path,
      method: operation.method,
      query,
      headers,
      ...(requestBody ? { body: requestBody } : {}),
    };
  }

  /** Texts that break `schema` (as a parameter's text), each checked to be invalid against it. */
  const invalidTexts = (parameter: Parameter): string[] => {
    const schema = schemaOf(parameter.schema);
    const candidates: string[] = ['not-a-valid-value-!', '~', '0', '-1', 'a b', '.'];
    if (typeof schema.maxLength === 'number') candidates.push('a'.repeat(schema.maxLength + 1));
    if (typeof schema.minimum === 'number') candidates.push(String(schema.minimum - 1));
    if (typeof schema.maximum === 'number') candidates.push(String(schema.maximum + 1));
    if (schema.type === 'integer') candidates.push('1.5', 'abc');
    if (parameter.in !== 'path' && !parameter.allowEmptyValue) candidates.push('');
    return candidates.filter(
      (text) =>
        // A URL client removes `.` path segments: such a path names another route.
        !(parameter.in === 'path' && (text === '' || text === '.')) &&
        !checker.isValid(schema, typedParameterValue(schema, schema.type === 'array' ? [text] : text)),
    );
  };

  /** Bodies that break the body schema: a required property missing, a wrong type, not an object. */
  const invalidBodies = (schema: JsonSchema, valid: unknown): unknown[] => {
    const candidates: unknown[] = ['text', 42, null];
    if (Array.isArray(valid)) candidates.push([...valid, 'extra'], []);
    if (typeof valid === 'object' && valid !== null && !Array.isArray(valid)) {
      for (const name of (schema.required as string[] | undefined) ?? []) {
        const { [name]: _dropped, ...rest } = valid as Record<string, unknown>;
        candidates.push(rest);
      }
      for (const name of Object.keys((schema.properties ?? {}) as object)) {
        candidates.push({ ...valid, [name]: { unexpected: true } });
      }
    }
    return candidates.filter((candidate) => !checker.isValid(schema, candidate));
  };

  /** A request that breaks one rule of the document, from a valid one; undefined when none can. */
  function invalidRequest(operation: DocumentedOperation): ContractRequest | undefined {
    const base = validRequest(operation, false);
    if (base === undefined) return undefined;
    const breaks: (() => ContractRequest | undefined)[] = [];
    for (const parameter of operation.operation.parameters ?? []) {
      if (parameter.in === 'cookie') continue;
      if (parameter.required && parameter.in !== 'path') {
        breaks.push(() => withoutParameter(base, parameter));
      }
      for (const text of invalidTexts(parameter)) {
        breaks.push(() => withParameter(operation, base, parameter, text));
      }
    }
    const content = operation.operation.requestBody?.content;
    const [contentType, media] = Object.entries(content ?? {})[0] ?? [];
    if (contentType === 'application/json' && media?.schema && base.body?.kind === 'json') {
      const schema = schemaOf(media.schema);
      for (const value of invalidBodies(schema, base.body.value)) {
        breaks.push(() => ({
          ...base,
          breaks: `body ${JSON.stringify(value)}`,
          body: { kind: 'json', value },
        }));
      }
    }
    if (contentType === 'multipart/form-data') {
      breaks.push(() => ({
        ...base,
        breaks: 'multipart body without the required file field',
        body: { kind: 'multipart', files: [{ field: 'other', bytes: files.image, fileName: 'x.png' }] },
      }));
    }
    if (operation.operation.requestBody?.required && contentType !== 'multipart/form-data') {
      const { body: _body, ...rest } = base;
      breaks.push(() => ({ ...rest, breaks: 'no body' }));
    }
    if (breaks.length === 0) return undefined;
    const made = random.pick(breaks)();
    return made === undefined ? undefined : { ...made, kind: 'invalid' };
  }

  function withoutParameter(base: ContractRequest, parameter: Parameter): ContractRequest {
    const breaks = `required ${parameter.in} parameter ${parameter.name} missing`;
    if (parameter.in === 'query')
      return { ...base, breaks, query: base.query.filter(([name]) => name !== parameter.name) };
    const { [parameter.name]: _dropped, ...headers } = base.headers;
    return { ...base, breaks, headers };
  }

  function withParameter(
    operation: DocumentedOperation,
    base: ContractRequest,
    parameter: Parameter,
    text: string,
  ): ContractRequest | undefined {
    const breaks = `${parameter.in} parameter ${parameter.name}=${JSON.stringify(text.slice(0, 40))}`;
    if (parameter.in === 'path') {
      // Rebuild the path from the template with the other values of the valid request.
      const template = operation.path.split('/');
      const actual = base.path.split('/');
      const path = template
        .map((segment, index) =>
          segment === `{${parameter.name}}` ? encodeURIComponent(text) : actual[index],
        )
        .join('/');
      return { ...base, breaks, path };
    }
    if (parameter.in === 'query') {
      const query = base.query.filter(([name]) => name !== parameter.name);
      query.push([parameter.name, text]);
      return { ...base, breaks, query };
    }
    if (!HEADER_TEXT.test(text) && text !== '') return undefined;
    return { ...base, breaks, headers: { ...base.headers, [parameter.name]: text } };
  }

  return { validRequest, invalidRequest, random };
}
