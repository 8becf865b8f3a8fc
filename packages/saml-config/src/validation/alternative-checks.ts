import { idpAlternativeIndexes, idpAlternativeKeys } from '../model/idp-alternatives.js';
import type { SamlIssue } from '../model/issues.js';
import type { SamlProperties } from '../model/property-definitions.js';

function present(value: string | undefined): boolean {
  return value !== undefined && value !== '';
}

function incomplete(urlKey: string, bindingKey: string, hasUrl: boolean): SamlIssue {
  return hasUrl
    ? {
        code: 'idp_endpoint_incomplete',
        key: bindingKey,
        message: `${urlKey} is set without ${bindingKey}; an alternative endpoint needs both its URL and its binding`,
      }
    : {
        code: 'idp_endpoint_incomplete',
        key: urlKey,
        message: `${bindingKey} is set without ${urlKey}; an alternative endpoint needs both its URL and its binding`,
      };
}

/**
 * Errors for alternative SSO/SLO endpoints missing half of their pair: a URL without its binding, a
 * binding without its URL, or an SLO response URL without the endpoint's URL.
 */
export function alternativeEndpointErrors(properties: SamlProperties): SamlIssue[] {
  const errors: SamlIssue[] = [];
  for (const index of idpAlternativeIndexes) {
    const keys = idpAlternativeKeys(index);
    const pairs = [
      [keys.ssoUrl, keys.ssoBinding],
      [keys.sloUrl, keys.sloBinding],
    ] as const;
    for (const [urlKey, bindingKey] of pairs) {
      const hasUrl = present(properties[urlKey]);
      if (hasUrl !== present(properties[bindingKey])) errors.push(incomplete(urlKey, bindingKey, hasUrl));
    }
    if (present(properties[keys.sloResponseUrl]) && !present(properties[keys.sloUrl])) {
      errors.push({
        code: 'idp_endpoint_incomplete',
        key: keys.sloUrl,
        message: `${keys.sloResponseUrl} is set without ${keys.sloUrl}`,
      });
    }
  }
  return errors;
}

/** `insecure_url` warnings for alternative endpoint URLs using plain http. */
export function alternativeUrlWarnings(properties: SamlProperties): SamlIssue[] {
  const warnings: SamlIssue[] = [];
  for (const index of idpAlternativeIndexes) {
    const keys = idpAlternativeKeys(index);
    for (const key of [keys.ssoUrl, keys.sloUrl, keys.sloResponseUrl]) {
      const value = properties[key];
      if (typeof value === 'string' && value.startsWith('http://')) {
        warnings.push({ code: 'insecure_url', key, message: `${key} uses plain http` });
      }
    }
  }
  return warnings;
}
