import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import type { JsonSchema } from './openapi-operations.js';

/**
 * Validates values against the document's (inlined) schemas with ajv in JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1; compiled validators are kept by schema object.
 */
export function createSchemaChecker() {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
  formatsPlugin.default(ajv);
  // OpenAPI's names for bytes: any string (the bytes themselves are not JSON).
  ajv.addFormat('binary', true);
  ajv.addFormat('byte', true);
  const compiled = new WeakMap<object, ValidateFunction>();
  const validatorOf = (schema: JsonSchema) => {
    let validate = compiled.get(schema);
    if (validate === undefined) {
      validate = ajv.compile(schema);
      compiled.set(schema, validate);
    }
    return validate;
  };
  return {
    /** The problems of `value` against `schema`, or undefined when it is valid. */
    problems(schema: JsonSchema, value: unknown): string | undefined {
      const validate = validatorOf(schema);
      return validate(value) ? undefined : ajv.errorsText(validate.errors);
    },
    isValid(schema: JsonSchema, value: unknown): boolean {
      return validatorOf(schema)(value) === true;
    },
  };
}

export type SchemaChecker = ReturnType<typeof createSchemaChecker>;

/**
 * A parameter's text as the server reads it, typed as its schema says (an integer, a boolean, an
 * array of texts), so that it can be validated against that schema.
 */
export function typedParameterValue(schema: JsonSchema, text: string | string[]): unknown {
  if (Array.isArray(text)) return text;
  const type = schema.type;
  if ((type === 'integer' || type === 'number') && /^-?[0-9]+(\.[0-9]+)?$/.test(text)) return Number(text);
  if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}
