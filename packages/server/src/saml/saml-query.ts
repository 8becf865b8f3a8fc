import { SamlConfigError } from '@collab-suite/saml-config';

/**
 * Reads a request's query into single string values, refusing names the route does not know and
 * repeated parameters, both with `invalid_parameters` naming the parameter.
 */
export function readQuery(query: unknown, allowed: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (!allowed.includes(name)) {
      const known = allowed.length === 0 ? 'none' : allowed.join(', ');
      throw new SamlConfigError(
        'invalid_parameters',
        `unknown query parameter ${JSON.stringify(name)}; expected one of: ${known}`,
      );
    }
    if (typeof value !== 'string') {
      throw new SamlConfigError(
        'invalid_parameters',
        `${name}: expected a single value but received several`,
      );
    }
    values[name] = value;
  }
  return values;
}

/** A boolean query parameter: `true`/`false` in any case; a bare `?raw` means true. */
export function booleanParameter(values: Record<string, string>, name: string): boolean | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  const text = value.trim().toLowerCase();
  if (text === 'true' || text === '') return true;
  if (text === 'false') return false;
  throw new SamlConfigError(
    'invalid_parameters',
    `${name}: expected true or false but received ${JSON.stringify(value.slice(0, 40))}`,
  );
}
