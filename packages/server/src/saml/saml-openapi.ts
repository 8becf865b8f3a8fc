import {
  DOMAIN_PATTERN,
  digestAlgorithms,
  MAX_CERTIFICATE_DAYS,
  MAX_DOMAIN_LENGTH,
  type SamlPropertyKey,
  SUBJECT_FIELD_LENGTHS,
  SUBJECT_TEXT_PATTERN,
  samlBindings,
  samlPropertyDefinitions,
  samlPropertyKeys,
  signatureAlgorithms,
} from '@collab-suite/saml-config';
import type { OpenApiFragment } from '../openapi/openapi-document.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const security = [{ bearer: [] }, { cookie: [] }];
const tags = ['SAML configuration'];

const domain = {
  name: 'domain',
  in: 'path',
  required: true,
  description:
    'Mail domain (letters, digits, hyphens, dots; lower-cased; internationalised names as xn--). Anything else: 400.',
  schema: {
    type: 'string',
    minLength: 1,
    maxLength: MAX_DOMAIN_LENGTH,
    pattern: DOMAIN_PATTERN,
    examples: ['example.com'],
  },
};
const query = (name: string, description: string, schema: { type: string; [keyword: string]: unknown }) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
  // A bare boolean flag (`?raw`) means true.
  ...(schema.type === 'boolean' ? { allowEmptyValue: true } : {}),
});
const urlParameters = [
  query(
    'url',
    'Fetch the document from this https URL instead of the body (public addresses only, size and time bounded).',
    { type: 'string', format: 'uri' },
  ),
  query(
    'allowUnsecure',
    'With url: accept plain http and an invalid or self-signed TLS certificate, for this request only.',
    { type: 'boolean', default: false },
  ),
  query('entityId', 'With metadata listing several identity providers: the entityID to import.', {
    type: 'string',
  }),
];

const errors = {
  400: {
    description: 'The operation failed; `error` says why, `errors` lists each problem.',
    content: json(ref('SamlError')),
  },
  401: { description: 'No or invalid token.', content: json(ref('SamlError')) },
  403: {
    description:
      'The token has no admin role, or a write authenticated by the cookie came from another origin.',
    content: json(ref('SamlError')),
  },
};
const unsupportedType = {
  415: {
    description: 'A body of a content type the operation does not take.',
    content: json(ref('SamlError')),
  },
};
/** A write on a full disk (`storage_full`): nothing of it was stored. */
const storageFull = {
  507: {
    description: "The property store's disk is full; nothing was changed.",
    content: json(ref('SamlError')),
  },
};
const propertiesResponse = (description: string) => ({
  200: { description, content: json(ref('SAMLProperties')) },
  ...errors,
});
const documentBody = {
  required: false,
  content: {
    'application/json': { schema: ref('SAMLProperties') },
    'application/xml': {
      schema: {
        type: 'string',
        description:
          'A SAMLProperties document or IdP metadata (EntityDescriptor), also as text/xml or application/*+xml; never text/plain (415). No DOCTYPE.',
      },
    },
  },
};

const INDEXED_KEY = /\.\d+(\.|$)/;

/** What the indexed IdP keys hold, said once in the schema of each. */
function alternativeDescription(key: SamlPropertyKey): string | undefined {
  if (!INDEXED_KEY.test(key)) return undefined;
  return key.startsWith('idp.x509certMulti.')
    ? 'Another IdP signing certificate (PEM) trusted beside idp.x509cert, index 0 to 9; checked like idp.x509cert.'
    : 'Another IdP endpoint offered by the metadata beside the unindexed key, index 0 to 9; url and binding go together.';
}

/** The closed value sets worth listing in the schema (the algorithm and binding URIs), with their defaults. */
function propertySchema(key: SamlPropertyKey): Record<string, unknown> {
  const description = alternativeDescription(key);
  const schema = valueSchema(key);
  return description === undefined ? schema : { ...schema, description };
}

function valueSchema(key: SamlPropertyKey): Record<string, unknown> {
  switch (samlPropertyDefinitions[key].kind) {
    case 'boolean':
      return { type: 'boolean' };
    case 'signature-algorithm':
      return {
        type: 'string',
        enum: Object.values(signatureAlgorithms),
        default: signatureAlgorithms.rsaSha256,
      };
    case 'digest-algorithm':
      return { type: 'string', enum: Object.values(digestAlgorithms), default: digestAlgorithms.sha256 };
    case 'binding':
      return { type: 'string', enum: Object.values(samlBindings) };
    default:
      return { type: 'string' };
  }
}

const propertySchemas = Object.fromEntries(samlPropertyKeys.map((key) => [key, propertySchema(key)]));

/** A comma-delimited list of property names (blank entries and white space around names ignored). */
const keyName = `(?:${samlPropertyKeys.map((key) => key.replaceAll('.', '\\.')).join('|')})`;
const keyList = {
  type: 'string',
  pattern: `^\\s*${keyName}?\\s*(?:,\\s*${keyName}?\\s*)*$`,
};

const issue = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'string', examples: ['idp_cert_or_fingerprint_not_found_and_required'] },
    key: { type: 'string' },
    message: { type: 'string' },
  },
};

const validateResponses = {
  200: {
    description:
      'Valid: the validated properties (with `details=true`: `{ok, properties, errors, warnings, certificates}`). Warning codes are also in `X-Saml-Warnings`, the IdP certificate expiry in `X-Saml-Idp-Cert-Not-After`.',
    content: json(ref('SAMLProperties')),
  },
  400: {
    description: 'Invalid: `{ok:false, error, errors, warnings, certificates}`.',
    content: json(ref('SamlValidationError')),
  },
  401: errors[401],
  403: errors[403],
};

/** A certificate subject field: trimmed, 1 to its length, no control characters. */
const subjectText = (name: keyof typeof SUBJECT_FIELD_LENGTHS) => ({
  type: 'string',
  maxLength: SUBJECT_FIELD_LENGTHS[name],
  pattern: SUBJECT_TEXT_PATTERN,
  description: `1 to ${SUBJECT_FIELD_LENGTHS[name]} characters (surrounding white space is trimmed), no control characters.`,
});

/** A parameter whose empty value means its default. */
const emptyIsDefault = <Parameter extends object>(parameter: Parameter) => ({
  ...parameter,
  allowEmptyValue: true,
});

const generateParameters = [
  emptyIsDefault(
    query('days', `Validity in days, 1 to ${MAX_CERTIFICATE_DAYS}; empty is the default.`, {
      type: 'integer',
      default: 365,
      minimum: 1,
      maximum: MAX_CERTIFICATE_DAYS,
    }),
  ),
  emptyIsDefault(
    query('digest', 'Signature digest (SHA1 is deprecated and reported); empty is the default.', {
      type: 'string',
      enum: ['SHA1', 'SHA256', 'SHA384', 'SHA512'],
      default: 'SHA256',
    }),
  ),
  emptyIsDefault(
    query('encryption', 'Key algorithm and size; empty is the default.', {
      type: 'string',
      enum: ['RSA', 'RSA:2048', 'RSA:4096'],
      default: 'RSA:2048',
    }),
  ),
  query('country', 'Two-letter country code (C).', { type: 'string', pattern: '^[A-Za-z]{2}$' }),
  query('state', 'State or province (ST).', subjectText('state')),
  query('location', 'City (L).', subjectText('location')),
  query('organization', 'Organization (O); commas and = stay inside the value.', subjectText('organization')),
  query('organizationalUnit', 'Organizational unit (OU).', subjectText('organizationalUnit')),
];

/** OpenAPI description of the SAML configuration routes, relative to SAML_BASE_PATH. */
export const samlOpenApi: OpenApiFragment = {
  tags: [
    {
      name: 'SAML configuration',
      description: 'Per-domain SAML single-sign-on settings (administrators only).',
    },
  ],
  paths: {
    '/saml/{domain}': {
      get: {
        tags,
        security,
        summary: 'Read all or some properties (defaults applied unless raw).',
        parameters: [
          domain,
          query('keys', 'Comma-delimited property names; an unknown name is a 400 naming it.', keyList),
          query('raw', 'When true, defaults are not applied and only stored properties are returned.', {
            type: 'boolean',
            default: false,
          }),
        ],
        responses: propertiesResponse('The properties.'),
      },
      put: {
        tags,
        security,
        summary:
          'Set only the supplied properties (null or blank removes one); returns the stored properties.',
        parameters: [domain],
        requestBody: { required: false, content: json(ref('SAMLProperties')) },
        responses: { ...propertiesResponse('The stored properties.'), ...unsupportedType, ...storageFull },
      },
      post: {
        tags,
        security,
        summary: 'Import a whole configuration (JSON or SAMLProperties XML) or IdP metadata, atomically.',
        description:
          'JSON and SAMLProperties replace every stored property; IdP metadata replaces the idp.* properties only. Import warnings are in `X-Saml-Warnings`. The document comes either in the body or from `url`, never both (400).',
        parameters: [
          domain,
          ...urlParameters,
          query('validate', 'Validate the result first; store nothing when invalid.', {
            type: 'boolean',
            default: false,
          }),
        ],
        requestBody: documentBody,
        responses: {
          ...propertiesResponse('The stored properties.'),
          413: { description: 'Body over SAML_MAX_DOCUMENT_BYTES.', content: json(ref('SamlError')) },
          ...unsupportedType,
          ...storageFull,
        },
      },
      delete: {
        tags,
        security,
        summary: 'Remove the listed properties, or all of them.',
        parameters: [
          domain,
          query('keys', 'Comma-delimited names; when missing or blank, every property is removed.', keyList),
        ],
        responses: { ...propertiesResponse('The stored properties left.'), ...storageFull },
      },
    },
    '/saml-validate/{domain}': {
      get: {
        tags,
        security,
        summary: 'Validate the domain’s configuration, certificates included.',
        parameters: [
          domain,
          query('details', 'Answer the full report instead of the properties.', {
            type: 'boolean',
            default: false,
          }),
        ],
        responses: validateResponses,
      },
    },
    '/saml-validate': {
      post: {
        tags,
        security,
        summary: 'Validate a supplied or fetched document without storing it.',
        parameters: [
          ...urlParameters,
          query('details', 'Answer the full report instead of the properties.', {
            type: 'boolean',
            default: false,
          }),
        ],
        requestBody: documentBody,
        responses: { ...validateResponses, ...unsupportedType },
      },
    },
    '/saml-generate/{domain}': {
      post: {
        tags,
        security,
        summary: 'Generate and store a self-signed SP certificate (CN = domain) and its PKCS#8 key.',
        parameters: [domain, ...generateParameters],
        responses: {
          ...propertiesResponse('The stored properties, with sp.x509cert and sp.privatekey.'),
          ...unsupportedType,
        },
      },
    },
    '/saml-metadata/{domain}': {
      get: {
        tags,
        security,
        summary:
          'The SP metadata XML of the domain, signed (enveloped XML-DSig, exclusive c14n, security.signature_algorithm and security.digest_algorithm, SP certificate in KeyInfo) when sign_metadata is true; unsigned with `X-Saml-Warnings: metadata_not_signed` when the SP key or certificate is missing or unusable.',
        parameters: [domain],
        responses: {
          200: {
            description: 'SP metadata.',
            content: { 'application/samlmetadata+xml': { schema: { type: 'string' } } },
          },
          ...errors,
        },
      },
    },
  },
  schemas: {
    SAMLProperties: { type: 'object', additionalProperties: false, properties: propertySchemas },
    SamlIssue: issue,
    SamlError: {
      type: 'object',
      required: ['ok', 'error'],
      properties: {
        ok: { type: 'boolean', const: false },
        error: { type: 'string' },
        code: { type: 'string' },
        errors: { type: 'array', items: ref('SamlIssue') },
        warnings: { type: 'array', items: ref('SamlIssue') },
      },
    },
    SamlValidationError: {
      allOf: [ref('SamlError'), { type: 'object', properties: { certificates: { type: 'object' } } }],
    },
  },
};
