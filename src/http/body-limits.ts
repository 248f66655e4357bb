/**
 * The largest request body an operation's schema allows, so the body limit never refuses a
 * request the contract accepts (docs/decisions.md#request-size-limits). Counted for the worst
 * encoding: a character (code point) at most 12 bytes, 4 UTF-8 bytes each percent-encoded
 * (`%F0%9F%98%80`) in a form, or a surrogate pair of two `\uXXXX` escapes in JSON.
 */
const BYTES_PER_CHARACTER = 12;
/** A string without `maxLength` (a CSRF token, an enum-less code) is counted at this length. */
const UNBOUNDED_STRING = 256;
/** An array without `maxItems` is counted at this many items. */
const UNBOUNDED_ITEMS = 16;
/** No operation's limit is below this (what every body had before limits were derived). */
export const BODY_LIMIT_FLOOR = 16 * 1024;

/** The parts of a JSON Schema a body's size depends on. */
export interface Schema {
  type?: string;
  maxLength?: number;
  maxItems?: number;
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
}

/** Bytes of the largest compact JSON (or form) value the schema allows. */
function largest(schema: Schema | undefined, depth = 0): number {
  if (!schema || depth > 8) return UNBOUNDED_STRING * BYTES_PER_CHARACTER;
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches) return Math.max(...branches.map((s) => largest(s, depth + 1)));
  if (schema.allOf) return schema.allOf.reduce((sum, s) => sum + largest(s, depth + 1), 0);
  if (schema.enum) return 2 + Math.max(...schema.enum.map((v) => JSON.stringify(v).length * BYTES_PER_CHARACTER));
  switch (schema.type) {
    case 'integer':
    case 'number':
      return 24;
    case 'boolean':
      return 5;
    case 'array':
      return 2 + (schema.maxItems ?? UNBOUNDED_ITEMS) * (largest(schema.items, depth + 1) + 1);
    case 'object':
    case undefined:
      if (schema.properties) {
        return Object.entries(schema.properties).reduce((sum, [name, s]) => sum + name.length * BYTES_PER_CHARACTER + 4 + largest(s, depth + 1), 2);
      }
      return schema.type === 'object' ? UNBOUNDED_STRING * BYTES_PER_CHARACTER : 2 + (schema.maxLength ?? UNBOUNDED_STRING) * BYTES_PER_CHARACTER;
    default:
      return 2 + (schema.maxLength ?? UNBOUNDED_STRING) * BYTES_PER_CHARACTER;
  }
}

/** The body limit of an operation: its largest JSON or form body, at least BODY_LIMIT_FLOOR, in whole KiB. */
export function bodyLimitOf(content: Record<string, { schema?: Schema }> | undefined): number {
  let limit = BODY_LIMIT_FLOOR;
  for (const [type, media] of Object.entries(content ?? {})) {
    if (type !== 'multipart/form-data') limit = Math.max(limit, largest(media.schema));
  }
  return Math.ceil(limit / 1024) * 1024;
}

/** The names a form or JSON body of the operation declares (`undefined`: it declares none, so none is unknown). */
export function bodyFieldsOf(content: Record<string, { schema?: Schema }> | undefined): ReadonlySet<string> | undefined {
  const names = new Set<string>();
  for (const media of Object.values(content ?? {})) {
    const schemas = media.schema?.allOf ?? [media.schema ?? {}];
    for (const s of schemas) for (const name of Object.keys(s.properties ?? {})) names.add(name);
  }
  return names.size ? names : undefined;
}
