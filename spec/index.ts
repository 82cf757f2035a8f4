/**
 * Loads the document of spec/openapi.yaml, the single source of truth, and exposes its schemas,
 * constraints and compiled validators. Everything else (generators, checks, the reference server
 * and the gallery) reads constraints from here instead of repeating patterns and lengths.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under ESM its default export may arrive wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

/** The document as written: the one to read and to edit. */
export const SPEC_PATH = join(dirname(fileURLToPath(import.meta.url)), 'openapi.yaml');
/**
 * The same document as JSON, which is what a process loads: `npm run catalogs` writes it from
 * openapi.yaml, and tests/self/catalogs.spec.ts fails when the two differ. Loading the YAML parser
 * and parsing the document took some 60 ms of CPU in every process of a run (the command,
 * Playwright's runner, each worker, the validator), a hundred and more in `npm test`; JSON.parse
 * takes well under one.
 */
export const SPEC_JSON_PATH = join(dirname(fileURLToPath(import.meta.url)), 'openapi.json');

/** A JSON Schema node as it appears in the OpenAPI document. */
export interface SchemaNode {
  type?: string | string[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: string[];
  format?: string;
  minimum?: number;
  minItems?: number;
  minProperties?: number;
  required?: string[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  allOf?: SchemaNode[];
  $ref?: string;
  [keyword: string]: unknown;
}

interface OpenApiOperation {
  operationId: string;
  summary?: string;
  requestBody?: unknown;
  parameters?: { name: string; in: string; schema?: SchemaNode; $ref?: string }[];
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  components: {
    schemas: Record<string, SchemaNode>;
    parameters: Record<string, { name: string; schema: SchemaNode }>;
    headers: Record<string, { schema: SchemaNode }>;
  };
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** One operation of the document: method, path template and id. */
export interface Operation {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  /** The names of the path template's parameters, in order. */
  pathParams: string[];
  /** The schema of each path parameter, where the document gives one. */
  pathParamSchemas: ReadonlyMap<string, SchemaNode>;
  /** The name in components/schemas of each path parameter's schema, where it refers to one. */
  pathParamSchemaNames: ReadonlyMap<string, string>;
  hasRequestBody: boolean;
}

/** One parameter of an operation, as the document declares it. */
export interface OperationParameter {
  name: string;
  /** path, query or header. */
  in: string;
  required: boolean;
  /** Its schema as written (a `$ref` is resolved by `resolve` and `compile`). */
  schema: SchemaNode;
}

const SCHEMA_ID = 'https://payflow-conformance.invalid/spec';

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node !== null && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [
        key,
        key === '$ref' && typeof value === 'string'
          ? value.replace('#/components/schemas/', '#/$defs/')
          : rewriteRefs(value),
      ]),
    );
  }
  return node;
}

let cached: Spec | undefined;

export class Spec {
  readonly doc: OpenApiDocument;
  readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  /** `doc`: the document (default: spec/openapi.json, the JSON of spec/openapi.yaml). */
  constructor(doc: OpenApiDocument = JSON.parse(readFileSync(SPEC_JSON_PATH, 'utf8')) as OpenApiDocument) {
    this.doc = doc;
    // validateSchema: false, as for addSchema below: a schema compiled from a node (compile())
    // is not checked against the meta-schema, which would compile the meta-schema's validator.
    this.ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, validateSchema: false });
    addFormats(this.ajv);
    // Header schemas are validated the same way, under their own names.
    const defs = {
      ...(rewriteRefs(this.doc.components.schemas) as Record<string, unknown>),
      ...Object.fromEntries(
        Object.entries(this.doc.components.headers).map(([name, header]) => [
          `header:${name}`,
          rewriteRefs(header.schema),
        ]),
      ),
    };
    // Not checked against JSON Schema's meta-schema here: that compiles the meta-schema's own
    // validator, some 50 ms in every process of a run (the CLI, Playwright's runner and each
    // worker). schemaErrors() does it, and a self-test and `npm run spec:validate` check the
    // document; ajv's strict mode still refuses an unknown keyword when a schema is compiled.
    this.ajv.addSchema({ $id: SCHEMA_ID, $defs: defs }, undefined, undefined, false);
  }

  /**
   * The errors of the document's schemas against JSON Schema 2020-12's meta-schema (what
   * addSchema leaves out, for speed): none for a valid document.
   */
  schemaErrors(): ErrorObject[] {
    const all = this.ajv.getSchema(SCHEMA_ID)?.schema;
    return this.ajv.validateSchema(all as object) ? [] : [...(this.ajv.errors ?? [])];
  }

  /** The version of the interface description (info.version). */
  get version(): string {
    return this.doc.info.version;
  }

  /** A compiled validator of the component schema `name` (or `header:Sunset`). */
  validator(name: string): ValidateFunction {
    let fn = this.validators.get(name);
    if (!fn) {
      fn = this.ajv.getSchema(`${SCHEMA_ID}#/$defs/${name}`);
      if (!fn) throw new Error(`spec: no schema named ${name}`);
      this.validators.set(name, fn);
    }
    return fn;
  }

  /** Validates `value` against schema `name`; returns the errors, empty when valid. */
  errors(name: string, value: unknown): ErrorObject[] {
    const fn = this.validator(name);
    return fn(value) ? [] : [...(fn.errors ?? [])];
  }

  /** The raw component schema `name`, with one level of `$ref` followed. */
  schema(name: string): SchemaNode {
    const schemas = this.doc.components.schemas;
    const node = Object.hasOwn(schemas, name) ? schemas[name] : undefined;
    if (!node) throw new Error(`spec: no schema named ${name}`);
    return this.deref(node);
  }

  /** Follows a local `$ref` (and merges a two-part allOf of ref + constraints). */
  deref(node: SchemaNode): SchemaNode {
    if (node.$ref) {
      const name = node.$ref.replace('#/components/schemas/', '');
      return this.schema(name);
    }
    if (node.allOf) {
      return node.allOf.reduce<SchemaNode>((acc, part) => ({ ...acc, ...this.deref(part) }), {});
    }
    return node;
  }

  /** The schema of property `prop` of component schema `name`, dereferenced. */
  property(name: string, prop: string): SchemaNode {
    const parent = this.schema(name);
    const node =
      parent.properties && Object.hasOwn(parent.properties, prop) ? parent.properties[prop] : undefined;
    if (!node) throw new Error(`spec: schema ${name} has no property ${prop}`);
    return this.deref(node);
  }

  /**
   * Every operation of the document, in document order: worked out once (routing asks for them
   * for every request it places), a fresh array each call.
   */
  operations(): Operation[] {
    this.ops ??= this.deriveOperations();
    return [...this.ops];
  }

  private ops: Operation[] | undefined;

  private deriveOperations(): Operation[] {
    const out: Operation[] = [];
    for (const [path, item] of Object.entries(this.doc.paths)) {
      const shared = (item.parameters ?? []) as OpenApiOperation['parameters'];
      for (const method of HTTP_METHODS) {
        const op = item[method] as OpenApiOperation | undefined;
        if (!op) continue;
        const params = [...(shared ?? []), ...(op.parameters ?? [])].map((p) =>
          p.$ref ? this.parameter(p.$ref)! : p,
        );
        const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
        const pathParamSchemas = new Map<string, SchemaNode>();
        const pathParamSchemaNames = new Map<string, string>();
        for (const p of params) {
          if (p && pathParams.includes(p.name) && p.schema) {
            pathParamSchemas.set(p.name, this.deref(p.schema));
            const ref = (p.schema as { $ref?: string }).$ref;
            if (ref?.startsWith('#/components/schemas/'))
              pathParamSchemaNames.set(p.name, ref.slice('#/components/schemas/'.length));
          }
        }
        out.push({
          operationId: op.operationId,
          method: method.toUpperCase(),
          path,
          summary: op.summary ?? '',
          pathParams,
          pathParamSchemas,
          pathParamSchemaNames,
          hasRequestBody: op.requestBody !== undefined,
        });
      }
    }
    return out;
  }

  /**
   * The parameters of one operation (those of its path item first, then its own), with `$ref`s
   * to components/parameters followed; `in` says where each goes (path, query, header).
   */
  parameters(operationId: string): OperationParameter[] {
    for (const [path, item] of Object.entries(this.doc.paths)) {
      const shared = (item.parameters ?? []) as NonNullable<OpenApiOperation['parameters']>;
      for (const method of HTTP_METHODS) {
        const op = item[method] as OpenApiOperation | undefined;
        if (op?.operationId !== operationId) continue;
        return [...shared, ...(op.parameters ?? [])].map((p) => {
          const param = (p.$ref ? this.parameter(p.$ref) : p) as
            { name: string; in?: string; required?: boolean; schema?: SchemaNode } | undefined;
          if (!param) throw new Error(`spec: ${operationId} (${path}): unresolved parameter ${p.$ref ?? ''}`);
          return {
            name: param.name,
            in: param.in ?? 'path',
            required: param.required === true,
            schema: param.schema ?? {},
          };
        });
      }
    }
    throw new Error(`spec: no operation ${operationId}`);
  }

  /** The parameter of components/parameters a `$ref` names. */
  private parameter(ref: string): OpenApiDocument['components']['parameters'][string] | undefined {
    const parameters = this.doc.components.parameters;
    const name = ref.replace('#/components/parameters/', '');
    return Object.hasOwn(parameters, name) ? parameters[name] : undefined;
  }

  /**
   * Follows a `$ref` of the document, also one that points inside a component schema
   * (`#/components/schemas/PaginationDetails/properties/page`), to the node it names.
   */
  resolve(node: SchemaNode): SchemaNode {
    const ref = node.$ref;
    if (ref === undefined) return this.deref(node);
    if (!ref.startsWith('#/')) throw new Error(`spec: not a local $ref: ${ref}`);
    let at: unknown = this.doc;
    for (const token of ref.slice(2).split('/')) {
      const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
      at =
        at !== null && typeof at === 'object' && Object.hasOwn(at, key)
          ? (at as Record<string, unknown>)[key]
          : undefined;
      if (at === undefined) throw new Error(`spec: $ref ${ref} names nothing`);
    }
    return this.resolve(at as SchemaNode);
  }

  private readonly compiled = new WeakMap<SchemaNode, ValidateFunction>();

  /**
   * A validator of any schema node of the document (a parameter's schema, say), its `$ref`s
   * resolved against the components; compiled once per node and kept.
   */
  compile(node: SchemaNode): ValidateFunction {
    let fn = this.compiled.get(node);
    if (!fn) {
      const absolute = (n: unknown): unknown => {
        if (Array.isArray(n)) return n.map(absolute);
        if (n === null || typeof n !== 'object') return n;
        return Object.fromEntries(
          Object.entries(n).map(([key, value]) => [
            key,
            key === '$ref' && typeof value === 'string'
              ? `${SCHEMA_ID}${value.replace('#/components/schemas/', '#/$defs/')}`
              : absolute(value),
          ]),
        );
      };
      fn = this.ajv.compile(absolute(node) as object);
      this.compiled.set(node, fn);
    }
    return fn;
  }

  /** The allowed single characters of a `^[class]+$`-style pattern, probed over ASCII. */
  allowedChars(pattern: string): string[] {
    const re = new RegExp(pattern, 'u');
    const chars: string[] = [];
    for (let code = 0x20; code < 0x7f; code++) {
      const c = String.fromCharCode(code);
      if (re.test(c)) chars.push(c);
    }
    return chars;
  }
}

/** The shared, lazily loaded spec. */
export function spec(): Spec {
  cached ??= new Spec();
  return cached;
}
