import { SamlConfigError } from '../errors.js';
import type { SamlIssue } from '../model/issues.js';
import { type ParsedProperties, parseProperties } from '../model/parse-properties.js';
import { type SamlPropertyKey, samlPropertyKeys } from '../model/property-definitions.js';
import { mapIdpMetadata } from './idp-metadata.js';
import { originalElementName, parseXml, type XmlNode } from './xml-document.js';

/** Which of the accepted formats a document was. */
export type DocumentFormat = 'json' | 'saml-properties-xml' | 'idp-metadata';

/** A document read into properties, ready to store or validate. */
export interface ReadDocument {
  format: DocumentFormat;
  parsed: ParsedProperties;
  /**
   * The keys an import replaces: every key for a whole configuration (JSON, SAMLProperties), only
   * the `idp.*` keys plus the mapped ones for IdP metadata (the SP side stays as it was).
   */
  replaces: readonly SamlPropertyKey[];
  /** Findings made while reading (several IdP certificates, NameID format not offered). */
  warnings: SamlIssue[];
}

/** Options of {@link readDocument}. */
export interface ReadDocumentOptions {
  /** Largest document accepted, in bytes. */
  maxBytes: number;
  now: Date;
  /** Which IdP to take from metadata describing several. */
  entityId?: string | undefined;
}

function decodeText(input: string | Uint8Array, maxBytes: number): string {
  const size = typeof input === 'string' ? Buffer.byteLength(input) : input.byteLength;
  if (size > maxBytes) {
    throw new SamlConfigError(
      'document_too_large',
      `expected a document of at most ${maxBytes} bytes but received ${size}`,
      {
        details: { limit: maxBytes, size },
      },
    );
  }
  const text = typeof input === 'string' ? input : new TextDecoder('utf-8', { fatal: false }).decode(input);
  return text.replace(/^\uFEFF/, '').trim();
}

function samlPropertiesInput(root: unknown): { input: Record<string, unknown>; issues: SamlIssue[] } {
  const input: Record<string, unknown> = Object.create(null);
  const issues: SamlIssue[] = [];
  if (typeof root !== 'object' || root === null) return { input, issues };
  for (const [name, value] of Object.entries(root as XmlNode)) {
    if (name.startsWith('@_') || name === '#text') continue;
    const key = originalElementName(name);
    if (Array.isArray(value)) {
      issues.push({
        code: 'duplicate_key',
        key,
        message: `expected <${key}> once but it appears ${value.length} times`,
      });
    } else if (typeof value === 'object' && value !== null) {
      const text = (value as XmlNode)['#text'];
      const nested = Object.keys(value).some((child) => !child.startsWith('@_') && child !== '#text');
      if (nested)
        issues.push({
          code: 'value_not_text',
          key,
          message: `expected <${key}> to contain text but it contains elements`,
        });
      else input[key] = typeof text === 'string' ? text : '';
    } else {
      input[key] = value;
    }
  }
  return { input, issues };
}

function readXml(text: string, options: ReadDocumentOptions): ReadDocument {
  const document = parseXml(text);
  const roots = Object.keys(document).filter((name) => !name.startsWith('@_') && name !== '#text');
  const [rootName, ...extra] = roots;
  if (rootName === undefined || extra.length > 0) {
    throw new SamlConfigError(
      'invalid_document',
      `expected one XML root element but received ${roots.length}`,
    );
  }
  if (rootName === 'SAMLProperties') {
    const { input, issues } = samlPropertiesInput(document[rootName]);
    const parsed = parseProperties(input);
    parsed.issues.unshift(...issues);
    return { format: 'saml-properties-xml', parsed, replaces: samlPropertyKeys, warnings: [] };
  }
  if (rootName === 'EntityDescriptor' || rootName === 'EntitiesDescriptor') {
    const rootNode = document[rootName];
    const node = (Array.isArray(rootNode) ? rootNode[0] : rootNode) as XmlNode;
    const mapping = mapIdpMetadata(node ?? {}, rootName, options);
    const parsed = parseProperties(mapping.values);
    const mapped = Object.keys(mapping.values) as SamlPropertyKey[];
    const idpKeys = samlPropertyKeys.filter((key) => key.startsWith('idp.'));
    return {
      format: 'idp-metadata',
      parsed,
      replaces: [...new Set([...idpKeys, ...mapped])],
      warnings: mapping.warnings,
    };
  }
  throw new SamlConfigError(
    'invalid_document',
    `expected a SAMLProperties document or IdP metadata (EntityDescriptor) but received root element <${originalElementName(rootName)}>`,
  );
}

function readJson(text: string): ReadDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SamlConfigError('invalid_document', `expected a JSON object but ${(error as Error).message}`, {
      cause: error,
    });
  }
  return { format: 'json', parsed: parseProperties(value), replaces: samlPropertyKeys, warnings: [] };
}

/**
 * Reads an import or validation document: an already parsed JSON value (a flat property map), or
 * text/bytes holding JSON, a `SAMLProperties` XML document, or IdP metadata (`EntityDescriptor` or
 * `EntitiesDescriptor`). Malformed property values come back as `parsed.issues`.
 * @throws SamlConfigError `document_too_large`, `invalid_document`, `invalid_metadata`, `invalid_properties`
 */
export function readDocument(input: unknown, options: ReadDocumentOptions): ReadDocument {
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) {
    return { format: 'json', parsed: parseProperties(input), replaces: samlPropertyKeys, warnings: [] };
  }
  const text = decodeText(input, options.maxBytes);
  if (text.startsWith('<')) return readXml(text, options);
  if (text.startsWith('{')) return readJson(text);
  throw new SamlConfigError(
    'invalid_document',
    text === ''
      ? 'expected a JSON object, a SAMLProperties XML document or IdP metadata but received an empty document'
      : 'expected a JSON object, a SAMLProperties XML document or IdP metadata but received text that is neither JSON nor XML',
  );
}
