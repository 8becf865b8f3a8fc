import { randomUUID } from 'node:crypto';
import { certificateBase64 } from '../certificates/pem.js';
import { SamlConfigError } from '../errors.js';
import type { SamlProperties } from '../model/property-definitions.js';

/** Options of {@link buildSpMetadata}. */
export interface SpMetadataOptions {
  now: Date;
  /** @default 2 days, as java-saml and python3-saml */
  validForMs?: number;
}

const TWO_DAYS_MS = 2 * 86_400_000;
const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';

/** Escapes text for XML element content and double-quoted attributes. */
export function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;')
    .replaceAll('\r', '&#13;');
}

function text(properties: SamlProperties, key: keyof SamlProperties): string | undefined {
  const value = properties[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function keyDescriptor(use: 'signing' | 'encryption', certificate: string): string {
  return [
    `    <md:KeyDescriptor use="${use}">`,
    `      <ds:KeyInfo xmlns:ds="${DS}">`,
    '        <ds:X509Data>',
    `          <ds:X509Certificate>${certificateBase64(certificate)}</ds:X509Certificate>`,
    '        </ds:X509Data>',
    '      </ds:KeyInfo>',
    '    </md:KeyDescriptor>',
  ].join('\n');
}

function descriptorChildren(properties: SamlProperties): string[] {
  const lines: string[] = [];
  const certificate = text(properties, 'sp.x509cert');
  if (certificate !== undefined) {
    lines.push(keyDescriptor('signing', certificate));
    const encrypted =
      properties['security.want_assertions_encrypted'] === true ||
      properties['security.want_nameid_encrypted'] === true;
    if (encrypted) lines.push(keyDescriptor('encryption', certificate));
  }
  const sls = text(properties, 'sp.single_logout_service.url');
  if (sls !== undefined) {
    const binding = text(properties, 'sp.single_logout_service.binding') ?? '';
    lines.push(`    <md:SingleLogoutService Binding="${escapeXml(binding)}" Location="${escapeXml(sls)}"/>`);
  }
  const nameIdFormat = text(properties, 'sp.nameidformat');
  if (nameIdFormat !== undefined)
    lines.push(`    <md:NameIDFormat>${escapeXml(nameIdFormat)}</md:NameIDFormat>`);
  const acsBinding = text(properties, 'sp.assertion_consumer_service.binding') ?? '';
  const acs = text(properties, 'sp.assertion_consumer_service.url') ?? '';
  lines.push(
    `    <md:AssertionConsumerService Binding="${escapeXml(acsBinding)}" Location="${escapeXml(acs)}" index="1"/>`,
  );
  return lines;
}

function organizationAndContacts(properties: SamlProperties): string[] {
  const lines: string[] = [];
  const name = text(properties, 'organization.name');
  const displayName = text(properties, 'organization.displayname');
  const url = text(properties, 'organization.url');
  if (name !== undefined && displayName !== undefined && url !== undefined) {
    const lang = escapeXml(text(properties, 'organization.lang') ?? 'en');
    lines.push(
      '  <md:Organization>',
      `    <md:OrganizationName xml:lang="${lang}">${escapeXml(name)}</md:OrganizationName>`,
      `    <md:OrganizationDisplayName xml:lang="${lang}">${escapeXml(displayName)}</md:OrganizationDisplayName>`,
      `    <md:OrganizationURL xml:lang="${lang}">${escapeXml(url)}</md:OrganizationURL>`,
      '  </md:Organization>',
    );
  }
  for (const type of ['technical', 'support'] as const) {
    const given = text(properties, `contacts.${type}.given_name`);
    const email = text(properties, `contacts.${type}.email_address`);
    if (given === undefined && email === undefined) continue;
    lines.push(`  <md:ContactPerson contactType="${type}">`);
    if (given !== undefined) lines.push(`    <md:GivenName>${escapeXml(given)}</md:GivenName>`);
    if (email !== undefined) lines.push(`    <md:EmailAddress>${escapeXml(email)}</md:EmailAddress>`);
    lines.push('  </md:ContactPerson>');
  }
  return lines;
}

/**
 * Builds the SP metadata document java-saml's `Metadata` produces (reference §4): EntityDescriptor
 * valid for two days with a one-week cache duration, SPSSODescriptor with the signing flags, signing
 * (and, when encryption is wanted, encryption) KeyDescriptor, SingleLogoutService when set,
 * NameIDFormat, AssertionConsumerService, Organization and ContactPerson elements. Unsigned; `signSpMetadata` signs it.
 * @throws SamlConfigError `incomplete_configuration` without sp.entityid or ACS URL
 */
export function buildSpMetadata(properties: SamlProperties, options: SpMetadataOptions): string {
  const entityId = text(properties, 'sp.entityid');
  const acs = text(properties, 'sp.assertion_consumer_service.url');
  if (entityId === undefined || acs === undefined) {
    throw new SamlConfigError(
      'incomplete_configuration',
      'SP metadata needs sp.entityid and sp.assertion_consumer_service.url; set them or configure the public URL',
    );
  }
  const validUntil = new Date(options.now.getTime() + (options.validForMs ?? TWO_DAYS_MS));
  const authnRequestsSigned = properties['security.authnrequest_signed'] === true;
  const wantAssertionsSigned = properties['security.want_assertions_signed'] === true;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<md:EntityDescriptor xmlns:md="${MD}" validUntil="${validUntil.toISOString()}" cacheDuration="PT604800S" entityID="${escapeXml(entityId)}" ID="_${randomUUID()}">`,
    `  <md:SPSSODescriptor AuthnRequestsSigned="${authnRequestsSigned}" WantAssertionsSigned="${wantAssertionsSigned}" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">`,
    ...descriptorChildren(properties),
    '  </md:SPSSODescriptor>',
    ...organizationAndContacts(properties),
    '</md:EntityDescriptor>',
    '',
  ].join('\n');
}
