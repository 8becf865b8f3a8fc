import { z } from 'zod';

/** The JSON Schema keywords that bound a value, copied from a zod schema into the OpenAPI document. */
const BOUND_KEYWORDS = [
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'enum',
] as const;

type JsonObject = Record<string, unknown>;

function boundsOf(schema: JsonObject): JsonObject {
  const bounds: JsonObject = {};
  for (const keyword of BOUND_KEYWORDS) {
    // A format (date-time) says it better than zod's long equivalent pattern.
    if (keyword === 'pattern' && schema.format !== undefined) continue;
    if (schema[keyword] !== undefined) bounds[keyword] = schema[keyword];
  }
  // The largest safe integer is no rule of the server's, only of JavaScript numbers.
  if (bounds.maximum === Number.MAX_SAFE_INTEGER) delete bounds.maximum;
  if (schema.type === 'array' && typeof schema.items === 'object' && schema.items !== null) {
    const items = boundsOf(schema.items as JsonObject);
    if (Object.keys(items).length > 0) bounds.items = items;
  }
  return bounds;
}

/**
 * The bounds (lengths, patterns, ranges, enums, item counts) of each property of a zod object
 * schema, as zod's own JSON Schema conversion states them: the document then says exactly what the
 * parser refuses, from the same source. Refinements (UUID, storable text) are not in them.
 */
export function zodPropertyBounds(schema: z.ZodType): Record<string, JsonObject> {
  const converted = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonObject;
  const properties = (converted.properties ?? {}) as Record<string, JsonObject>;
  return Object.fromEntries(Object.entries(properties).map(([name, value]) => [name, boundsOf(value)]));
}

/**
 * `properties` of an OpenAPI object schema with the bounds of the same properties in `schema`
 * merged in (the document's own keywords, such as `format` or a description, stay).
 */
export function withZodBounds(
  properties: Record<string, unknown>,
  schema: z.ZodType,
): Record<string, unknown> {
  const bounds = zodPropertyBounds(schema);
  return Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      const extra = bounds[name];
      if (extra === undefined || typeof property !== 'object' || property === null || '$ref' in property)
        return [name, property];
      const items = (property as JsonObject).items;
      const merged: JsonObject = { ...(property as JsonObject), ...extra };
      // Item bounds merge into the document's item schema unless it is a reference.
      if (extra.items !== undefined) {
        merged.items =
          typeof items === 'object' && items !== null && !('$ref' in items)
            ? { ...(items as JsonObject), ...(extra.items as JsonObject) }
            : items;
      }
      return [name, merged];
    }),
  );
}
