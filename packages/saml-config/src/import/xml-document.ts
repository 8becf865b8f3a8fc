import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { SamlConfigError } from '../errors.js';

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Replaces the five predefined XML entities and numeric character references. Any other named
 * reference is left as it is: there is no DTD, so there is nothing it could expand to.
 */
export function decodeXmlText(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (match, name: string) => {
    if (name.startsWith('#')) {
      const codePoint =
        name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return codePoint > 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : match;
    }
    return PREDEFINED[name] ?? match;
  });
}

/** Marks element names the parser would refuse outright, so they can be reported like any unknown name. */
const RESERVED_MARK = '\u0001';
const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/** The element name as written in the document (undoes the reserved-name marking). */
export function originalElementName(name: string): string {
  return name.startsWith(RESERVED_MARK) ? name.slice(RESERVED_MARK.length) : name;
}

/** A parsed XML element: attributes as `@_name`, text as `#text`, children by local name. */
export type XmlNode = { [name: string]: unknown };

/** Local names of metadata elements that may repeat and are always read as arrays. */
const REPEATABLE = new Set([
  'EntityDescriptor',
  'IDPSSODescriptor',
  'SingleSignOnService',
  'SingleLogoutService',
  'KeyDescriptor',
  'X509Certificate',
  'X509Data',
  'NameIDFormat',
]);

/**
 * Parses XML without ever reading a DTD or expanding an entity: a document with a DOCTYPE or an
 * ENTITY declaration is refused before parsing (this closes XXE and entity expansion), the parser's
 * entity processing is off, and only the predefined entities and character references are decoded.
 * Namespace prefixes are dropped; `repeatable` metadata elements are always arrays.
 * @throws SamlConfigError `invalid_document`
 */
export function parseXml(text: string): XmlNode {
  if (/<!DOCTYPE/i.test(text) || /<!ENTITY/i.test(text)) {
    throw new SamlConfigError(
      'invalid_document',
      'expected an XML document without a DOCTYPE but received one with a DOCTYPE or ENTITY declaration; DTDs and entities are refused',
    );
  }
  const validation = XMLValidator.validate(text);
  if (validation !== true) {
    const { msg, line, col } = validation.err;
    throw new SamlConfigError(
      'invalid_document',
      `expected well-formed XML but line ${line}, column ${col}: ${msg}`,
    );
  }
  const parser = new XMLParser({
    processEntities: false,
    htmlEntities: false,
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    transformTagName: (name) => (RESERVED_NAMES.has(name) ? `${RESERVED_MARK}${name}` : name),
    tagValueProcessor: (_name, value) => decodeXmlText(value),
    attributeValueProcessor: (_name, value) => decodeXmlText(value),
    isArray: (name, _path, _leaf, isAttribute) => !isAttribute && REPEATABLE.has(name),
  });
  try {
    return parser.parse(text) as XmlNode;
  } catch (error) {
    throw new SamlConfigError(
      'invalid_document',
      `expected well-formed XML but ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}
