/**
 * Checks a JSON value against a schema of an OpenAPI 3.0 document (the subset Nest's swagger
 * module writes: $ref, type, nullable, enum, pattern, properties, required, items,
 * additionalProperties, allOf, anyOf, oneOf). Strict about objects: a property the schema does
 * not declare is an error unless it allows additional properties, so an undocumented field fails.
 * Returns the problems found, each with its JSON path; none when the value conforms.
 */
type Schema = Record<string, any>;

export function validateAgainst(doc: Schema, schema: Schema, value: unknown, path = '$'): string[] {
  if (schema.$ref !== undefined) {
    const name = String(schema.$ref).replace('#/components/schemas/', '');
    const target = doc.components?.schemas?.[name];
    if (target === undefined) return [`${path}: unresolved ${schema.$ref}`];
    return validateAgainst(doc, target, value, path);
  }
  if (value === null) return schema.nullable === true ? [] : [`${path}: null where the schema does not allow it`];
  const problems: string[] = [];
  if (schema.allOf) for (const s of schema.allOf) problems.push(...validateAgainst(doc, s, value, path));
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!schema[key]) continue;
    const matches = (schema[key] as Schema[]).filter((s) => validateAgainst(doc, s, value, path).length === 0).length;
    if (key === 'anyOf' ? matches === 0 : matches !== 1) problems.push(`${path}: ${JSON.stringify(value)} matches ${matches} of ${key}`);
  }
  if (schema.enum && !schema.enum.includes(value)) problems.push(`${path}: ${JSON.stringify(value)} not one of ${JSON.stringify(schema.enum)}`);
  const type = schema.type ?? (schema.properties ? 'object' : undefined);
  switch (type) {
    case 'string':
      if (typeof value !== 'string') problems.push(`${path}: expected a string, got ${JSON.stringify(value)}`);
      else if (schema.pattern && !new RegExp(schema.pattern).test(value)) problems.push(`${path}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
      break;
    case 'integer':
      if (!Number.isInteger(value)) problems.push(`${path}: expected an integer, got ${JSON.stringify(value)}`);
      break;
    case 'number':
      if (typeof value !== 'number') problems.push(`${path}: expected a number, got ${JSON.stringify(value)}`);
      break;
    case 'boolean':
      if (typeof value !== 'boolean') problems.push(`${path}: expected a boolean, got ${JSON.stringify(value)}`);
      break;
    case 'array':
      if (!Array.isArray(value)) problems.push(`${path}: expected an array`);
      else if (schema.items) value.forEach((v, i) => problems.push(...validateAgainst(doc, schema.items, v, `${path}[${i}]`)));
      break;
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) {
        problems.push(`${path}: expected an object`);
        break;
      }
      const o = value as Record<string, unknown>;
      for (const r of schema.required ?? []) if (!(r in o)) problems.push(`${path}: missing required ${r}`);
      // an object described by composition alone (a nullable $ref is written as allOf) was checked by its parts
      const composed = schema.properties === undefined && (schema.allOf || schema.anyOf || schema.oneOf);
      for (const [k, v] of composed ? [] : Object.entries(o)) {
        const p = schema.properties?.[k];
        if (p !== undefined) problems.push(...validateAgainst(doc, p, v, `${path}.${k}`));
        else if (typeof schema.additionalProperties === 'object') problems.push(...validateAgainst(doc, schema.additionalProperties, v, `${path}.${k}`));
        else if (schema.additionalProperties !== true) problems.push(`${path}: undocumented property ${k}`);
      }
      break;
    }
  }
  return problems;
}

/** the schema an operation of the document gives an answer of this status (application/json) */
export function responseSchema(doc: Schema, method: string, path: string, status: number): Schema | undefined {
  return doc.paths?.[path]?.[method.toLowerCase()]?.responses?.[String(status)]?.content?.['application/json']?.schema;
}
