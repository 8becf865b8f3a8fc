import {
  type DocumentedOperation,
  documentedResponse,
  inlineReferences,
  type JsonSchema,
  mediaTypeMatches,
  type OpenApiDocument,
} from './openapi-operations.js';
import type { ContractRequest, RequestBody } from './request-generator.js';
import { type SchemaChecker, typedParameterValue } from './schema-checker.js';

/** An answer of the server, read whole. */
export interface ContractAnswer {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
}

/** Sends one request to `baseUrl` with `authorization`, and reads the whole answer. */
export async function send(
  baseUrl: string,
  request: ContractRequest,
  authorization: string,
  method = request.method,
): Promise<ContractAnswer> {
  const url = new URL(`${baseUrl}${request.path}`);
  for (const [name, value] of request.query) url.searchParams.append(name, value);
  const headers: Record<string, string> = { authorization, ...request.headers };
  const response = await fetch(url, {
    method: method.toUpperCase(),
    headers,
    ...(method.toUpperCase() === 'HEAD' || method.toUpperCase() === 'GET'
      ? {}
      : encodeBody(request.body, headers)),
    signal: AbortSignal.timeout(60_000),
  });
  return {
    status: response.status,
    headers: response.headers,
    bytes: new Uint8Array(await response.arrayBuffer()),
  };
}

function encodeBody(
  body: RequestBody | undefined,
  headers: Record<string, string>,
): { body?: string | Uint8Array | FormData } {
  if (body === undefined) return {};
  if (body.kind === 'json') {
    headers['content-type'] = 'application/json';
    return { body: JSON.stringify(body.value) };
  }
  if (body.kind === 'bytes') {
    headers['content-type'] = body.contentType;
    return { body: body.bytes };
  }
  const form = new FormData();
  for (const file of body.files) form.append(file.field, new Blob([file.bytes]), file.fileName);
  return { body: form };
}

/**
 * What in `answer` the document does not say for `operation`: an undocumented status, a content type
 * outside the documented ones, a JSON body that does not match its schema, a documented header of
 * the wrong shape, or a body where none is documented (HEAD, 204, 304). Empty when it all matches.
 */
export function answerProblems(
  document: OpenApiDocument,
  checker: SchemaChecker,
  operation: DocumentedOperation,
  answer: ContractAnswer,
  method: string,
): string[] {
  const problems: string[] = [];
  const described = documentedResponse(operation.operation, answer.status);
  if (described === undefined) return [`status ${answer.status} is not documented`];
  const noBody = method === 'head' || answer.status === 204 || answer.status === 304;
  if (noBody) {
    if (answer.bytes.length > 0)
      problems.push(`${answer.status} to ${method} has a body of ${answer.bytes.length} bytes`);
  } else if (described.content !== undefined) {
    const contentType = answer.headers.get('content-type') ?? '';
    const match = Object.entries(described.content).find(([range]) => mediaTypeMatches(range, contentType));
    if (match === undefined) {
      problems.push(
        `content type ${JSON.stringify(contentType)} is not one of ${Object.keys(described.content).join(', ')}`,
      );
    } else if (mediaTypeMatches('application/json', contentType) && match[1].schema) {
      let value: unknown;
      try {
        value = JSON.parse(Buffer.from(answer.bytes).toString('utf8'));
      } catch {
        problems.push('the JSON body does not parse');
      }
      const schema = inlineReferences(match[1].schema, document) as JsonSchema;
      const bodyProblems = value === undefined ? undefined : checker.problems(schema, value);
      if (bodyProblems !== undefined) problems.push(`body: ${bodyProblems}`);
    }
  }
  for (const [name, header] of Object.entries(described.headers ?? {})) {
    if (name.toLowerCase() === 'content-type') continue;
    const value = answer.headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`required header ${name} is missing`);
      continue;
    }
    if (header.schema) {
      const schema = inlineReferences(header.schema, document) as JsonSchema;
      const headerProblems = checker.problems(schema, typedParameterValue(schema, value));
      if (headerProblems !== undefined) problems.push(`header ${name}: ${headerProblems}`);
    }
  }
  return problems;
}

/**
 * For a request the document says is valid: whether the refusal is one of input validation, the kind
 * of rule the document should have stated (a 422, or a 400 whose code is a validation code). A 4xx
 * for a reason the schema cannot carry (an unknown id, bytes that are no image, SDP that is not
 * well-formed, a cursor the server did not make) is not.
 */
export function validationRefusal(answer: ContractAnswer): string | undefined {
  if (answer.status === 422) return Buffer.from(answer.bytes).toString('utf8').slice(0, 300);
  if (answer.status !== 400) return undefined;
  const text = Buffer.from(answer.bytes).toString('utf8');
  let body: { code?: unknown; message?: unknown; error?: unknown } = {};
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const code = typeof body.code === 'string' ? body.code : '';
  if (!['invalid_input', 'invalid_parameters', 'invalid_domain'].includes(code)) return undefined;
  const message = String(body.message ?? body.error ?? '');
  // Opaque tokens (only the server knows which texts it made), the state of /events sessions, and
  // the one rule between a parameter and the body (SAML: a document or a url), which OpenAPI can
  // only say in prose (the operation's description does).
  if (/`filter`|cursor|open \/events session|a url, not both/.test(message)) return undefined;
  return `${code}: ${message.slice(0, 300)}`;
}
