import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/** The JSON Schemas po-node publishes (schemas/*.schema.json), compiled once on first use. */
export type SchemaName =
  'config' | 'processes-list' | 'health' | 'v1-epds' | 'catalogue-index' | 'build-report' | 'check-report' | 'deploy-report';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
let ajv: Ajv | undefined;
const compiled = new Map<SchemaName, ValidateFunction>();

export function schemaUrl(name: SchemaName): URL {
  return new URL(`../schemas/${name}.schema.json`, import.meta.url);
}

/** Validate data; returns readable problems (`/path: message`), empty when valid. */
export function validateWithSchema(name: SchemaName, data: unknown): string[] {
  let fn = compiled.get(name);
  if (!fn) {
    ajv ??= addFormats(new Ajv({ allErrors: true, strict: true }));
    fn = ajv.compile(JSON.parse(readFileSync(schemaUrl(name), 'utf8')) as object);
    compiled.set(name, fn);
  }
  if (fn(data)) return [];
  return (fn.errors ?? []).map(
    (e) =>
      `${e.instancePath || '/'}: ${e.message ?? 'invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
  );
}
