// Inputs at the default limits for bench/event-loop-blockers.mjs: 1 MiB SAML metadata and JSON, and
// 50 MB xlsx containers (compound files come from preview-core's `makeLargeCompoundFile`). Built in
// memory in a few seconds; nothing is written to disk.
import { randomUUID, webcrypto } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:';
const MIB = 1024 * 1024;

/** Base64 of a certificate, wrapped at 64 characters as IdPs publish it. */
function wrapped(base64) {
  return base64.match(/.{1,64}/g).join('\n');
}

function keyDescriptor(use, base64) {
  return `<md:KeyDescriptor use="${use}"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>\n${wrapped(base64)}\n</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;
}

function idpEntity(entityId, keyDescriptors) {
  const host = new URL(entityId).host;
  return `<md:EntityDescriptor entityID="${entityId}"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">${keyDescriptors}<md:SingleLogoutService Binding="${BINDING}HTTP-Redirect" Location="https://${host}/slo"/><md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat><md:SingleSignOnService Binding="${BINDING}HTTP-Redirect" Location="https://${host}/sso"/><md:SingleSignOnService Binding="${BINDING}HTTP-POST" Location="https://${host}/sso"/></md:IDPSSODescriptor><md:Organization><md:OrganizationName xml:lang="en">${host}</md:OrganizationName><md:OrganizationURL xml:lang="en">https://${host}/</md:OrganizationURL></md:Organization></md:EntityDescriptor>`;
}

/**
 * Federation metadata of about `bytes` bytes: an `EntitiesDescriptor` of IdPs, each with a signing
 * and an encryption certificate (the 2048-bit `certificateBase64`), like a national federation's
 * aggregate. Resolves with the XML and the entityID of one IdP in the middle.
 */
export function federationMetadata(certificateBase64, bytes) {
  const entities = [];
  let size = 200;
  while (size < bytes) {
    const entity = idpEntity(
      `https://idp${entities.length}.university.example/idp/shibboleth`,
      keyDescriptor('signing', certificateBase64) + keyDescriptor('encryption', certificateBase64),
    );
    if (size + entity.length + 1 > bytes) break;
    entities.push(entity);
    size += entity.length + 1;
  }
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" Name="urn:federation:bench">${entities.join('\n')}</md:EntitiesDescriptor>`;
  return { xml, entityId: `https://idp${entities.length >> 1}.university.example/idp/shibboleth` };
}

/**
 * One IdP whose descriptor lists distinct signing certificates (P-256, made with @peculiar/x509, the
 * library saml-config uses) until the document reaches about `bytes`: every one is parsed to pick one.
 */
export async function manyCertificatesMetadata(root, bytes) {
  const samlRequire = createRequire(path.join(root, 'packages/saml-config/package.json'));
  await import(pathToFileURL(samlRequire.resolve('reflect-metadata')).href);
  const x509 = await import(pathToFileURL(samlRequire.resolve('@peculiar/x509')).href);
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, false, ['sign', 'verify']);
  const descriptors = [];
  let size = 1000;
  for (let index = 0; size < bytes; index += 1) {
    const certificate = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: (index + 1).toString(16).padStart(2, '0'),
      name: `CN=idp signing ${index}`,
      notBefore: new Date(Date.now() - 86_400_000),
      notAfter: new Date(Date.now() + (30 + index) * 86_400_000),
      keys,
      signingAlgorithm: algorithm,
    });
    const descriptor = keyDescriptor('signing', Buffer.from(certificate.rawData).toString('base64'));
    descriptors.push(descriptor);
    size += descriptor.length;
  }
  return `<?xml version="1.0"?>\n${idpEntity('https://idp.example.org/saml', descriptors.join('')).replace('<md:EntityDescriptor', '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata"')}`;
}

/** A JSON property map of about `bytes` bytes: the known keys plus thousands of unknown ones. */
export function manyKeysJson(bytes) {
  const value = { 'idp.entityid': 'https://idp.example.org/saml' };
  let size = 50;
  for (let index = 0; size < bytes; index += 1) {
    const key = `sp.custom.${index}.${randomUUID()}`;
    value[key] = 'x'.repeat(20);
    size += key.length + 26;
  }
  return JSON.stringify(value);
}

/** 1 MiB of worksheet-like XML rows, which deflate about 6 times, like real sheet parts. */
function sheetXml(bytes) {
  let text = '';
  for (let row = 1; text.length < bytes; row += 1) {
    const number = Math.floor(Math.random() * 1e6);
    const shared = Math.floor(Math.random() * 5000);
    text += `<row r="${row}"><c r="A${row}" t="n"><v>${number}</v></c><c r="B${row}" t="s"><v>${shared}</v></c></row>`;
  }
  return Buffer.from(text.slice(0, bytes));
}

const XLSX_CONTENT_TYPES =
  '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>';

/**
 * An xlsx-shaped zip of about `bytes` bytes split into `entries` worksheet parts, built with
 * preview-core's `testing` entry (`makeZip`, `repeatedDeflate`).
 */
export function manyEntriesXlsx(testing, bytes, entries) {
  const part = testing.repeatedDeflate(sheetXml(32 * 1024), 1);
  const sheets = Math.min(entries - 2, Math.ceil(bytes / part.bytes.byteLength));
  return testing.makeZip([
    { name: '[Content_Types].xml', data: XLSX_CONTENT_TYPES },
    { name: 'xl/workbook.xml', data: '<workbook/>' },
    ...Array.from({ length: sheets }, (_, index) => ({
      name: `xl/worksheets/sheet${index + 1}.xml`,
      data: '',
      deflated: part,
    })),
  ]);
}

/** An xlsx-shaped zip of about `bytes` bytes whose one worksheet part holds nearly all of it. */
export function oneLargeEntryXlsx(testing, bytes) {
  const data = sheetXml(MIB);
  const times = Math.floor(bytes / testing.repeatedDeflate(data, 1).bytes.byteLength);
  return testing.makeZip([
    { name: '[Content_Types].xml', data: XLSX_CONTENT_TYPES },
    { name: 'xl/workbook.xml', data: '<workbook/>' },
    { name: 'xl/worksheets/sheet1.xml', data: '', deflated: testing.repeatedDeflate(data, times) },
  ]);
}
