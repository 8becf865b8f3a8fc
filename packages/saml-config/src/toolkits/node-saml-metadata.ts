import type { SamlProperties } from '../model/property-definitions.js';
import type { NodeSamlConfig } from './node-saml-config.js';

/** node-saml's `metadataOrganization`, when `organization.name`, `.displayname` and `.url` are all set. */
export function metadataOrganization(
  properties: SamlProperties,
): NodeSamlConfig['metadataOrganization'] | undefined {
  const name = properties['organization.name'];
  const displayName = properties['organization.displayname'];
  const url = properties['organization.url'];
  if (!name || !displayName || !url) return undefined;
  const lang = properties['organization.lang'] || 'en';
  const entry = (text: string) => [{ '@xml:lang': lang, '#text': text }];
  return {
    OrganizationName: entry(name),
    OrganizationDisplayName: entry(displayName),
    OrganizationURL: entry(url),
  };
}

/** node-saml's `metadataContactPerson` entries for the technical and support contacts that are set. */
export function metadataContacts(
  properties: SamlProperties,
): NonNullable<NodeSamlConfig['metadataContactPerson']> {
  const contacts: NonNullable<NodeSamlConfig['metadataContactPerson']> = [];
  for (const type of ['technical', 'support'] as const) {
    const givenName = properties[`contacts.${type}.given_name`];
    const email = properties[`contacts.${type}.email_address`];
    if (!givenName && !email) continue;
    contacts.push({
      '@contactType': type,
      ...(givenName ? { GivenName: givenName } : {}),
      ...(email ? { EmailAddress: [email] as [string] } : {}),
    });
  }
  return contacts;
}
