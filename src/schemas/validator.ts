import * as fs from 'fs';
import * as path from 'path';
import Ajv, { ValidateFunction } from 'ajv';
import * as YAML from 'yaml';
import { locateSchemaDir } from './locate';
import { KubernetesVersion } from '../decisions/kubernetes-version';

type Json = { [k: string]: unknown };

/**
 * Validates manifest objects against the real schemas: Kubernetes kinds against the target
 * version's OpenAPI definitions (1.28 unless told; the platform's kubernetesVersion), custom resources against the
 * pinned CRDs. Strict like the API server's pruning:
 * an object schema that lists its properties rejects unknown fields (unless it preserves unknown
 * fields), because a field the server prunes is a setting silently lost.
 */
export class SchemaValidator {
  /** @param version the Kubernetes version whose pinned definitions validate built-in kinds (@default 1.28) */
  public static load(
    dir: string = locateSchemaDir(),
    version: KubernetesVersion = KubernetesVersion.V1_28,
  ): SchemaValidator {
    return new SchemaValidator(dir, version);
  }

  private readonly ajv: Ajv;
  private readonly k8sDefs: Record<string, Json>;
  private readonly crds = new Map<string, Json>();
  private readonly cache = new Map<string, ValidateFunction>();

  private constructor(
    public readonly dir: string,
    public readonly version: KubernetesVersion = KubernetesVersion.V1_28,
  ) {
    // CRD patterns are Go (RE2) regexes; the Prometheus Operator's use a leading "(?i)", which
    // JavaScript spells as the "i" flag.
    const regExp = Object.assign(
      (pattern: string, flags: string) => {
        const i = pattern.indexOf('(?i)');
        return i >= 0 && /^\^?$/.test(pattern.slice(0, i))
          ? new RegExp(pattern.slice(0, i) + pattern.slice(i + 4), `${flags}i`)
          : new RegExp(pattern, flags);
      },
      { code: 'new RegExp' },
    );
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, code: { regExp } });
    const defs = JSON.parse(fs.readFileSync(path.join(dir, 'schemas', version.schemaFile), 'utf8')) as {
      definitions: Record<string, Json>;
    };
    this.k8sDefs = strictify(defs.definitions) as Record<string, Json>;
    this.ajv.addSchema({ $id: 'k8s', definitions: this.k8sDefs });
    for (const f of fs
      .readdirSync(path.join(dir, 'crds'))
      .filter((x) => x.endsWith('.yaml'))
      .sort()) {
      const crd = YAML.parse(fs.readFileSync(path.join(dir, 'crds', f), 'utf8')) as {
        spec: {
          group: string;
          names: { kind: string };
          versions: { name: string; schema?: { openAPIV3Schema: Json } }[];
        };
      };
      for (const v of crd.spec.versions) {
        if (v.schema) this.crds.set(`${crd.spec.group}/${v.name}/${crd.spec.names.kind}`, v.schema.openAPIV3Schema);
      }
    }
  }

  /** The kinds this validator knows, as "apiVersion/kind". */
  public customKinds(): string[] {
    return [...this.crds.keys()];
  }

  /** Errors for one object ("<path> <message>"); empty when valid. */
  public validate(obj: unknown): string[] {
    const o = obj as { apiVersion?: string; kind?: string };
    if (!o || typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') return ['object has no apiVersion/kind'];
    const fn = this.validatorFor(o.apiVersion, o.kind);
    if (!fn) return [`no schema for ${o.apiVersion} ${o.kind} in ${this.dir}`];
    if (fn(obj)) return [];
    return (fn.errors ?? []).map(
      (e) =>
        `${e.instancePath || '/'} ${e.message}${
          e.params && 'additionalProperty' in e.params ? ' ' + `(${String(e.params.additionalProperty)})` : ''
        }`,
    );
  }

  private validatorFor(apiVersion: string, kind: string): ValidateFunction | undefined {
    const key = `${apiVersion}/${kind}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    let schema: Json | undefined;
    const crd = this.crds.get(`${group}/${version}/${kind}`);
    if (crd) {
      // CRD schemas declare metadata as a bare object; the API server checks it as ObjectMeta.
      const props = {
        ...(crd.properties as Json),
        metadata: { $ref: 'k8s#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      };
      schema = strictify({ ...crd, properties: props }) as Json;
    } else {
      const g = group === '' ? 'core' : group.split('.')[0];
      const name = `io.k8s.api.${g}.${version}.${kind}`;
      if (this.k8sDefs[name]) schema = { $ref: `k8s#/definitions/${name}` };
    }
    if (!schema) return undefined;
    const fn = this.ajv.compile(schema);
    this.cache.set(key, fn);
    return fn;
  }
}

/**
 * Adds `additionalProperties: false` to every object schema that lists properties and does not preserve unknown fields.
 */
function strictify(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strictify);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json))
    out[k] = JUNCTORS.has(k)
      ? v // a value validation: any other field passes (structural.ts, SchemaCompiler.valueValidation)
      : k === 'properties' || k === 'definitions'
        ? mapValues(v as Json, strictify)
        : strictify(v);
  if (out.properties && out.additionalProperties === undefined && out['x-kubernetes-preserve-unknown-fields'] !== true)
    out.additionalProperties = false;
  return out;
}

const JUNCTORS = new Set(['allOf', 'anyOf', 'oneOf', 'not']);

function mapValues(o: Json, f: (v: unknown) => unknown): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) out[k] = f(v);
  return out;
}
