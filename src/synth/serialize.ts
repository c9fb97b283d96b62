import type { Yaml as Cdk8sYaml } from 'cdk8s';
import * as YAML from 'yaml';
import { cachedFieldPath, reasonsOf, toCommentedYaml, wrap, YAML_OPTIONS } from '../justify/comments';
import { ANNOTATIONS } from '../justify/annotations';
import { writeYaml } from './yaml-writer';

/**
 * Serializes manifest objects as cdk8s' `Yaml.stringify` does (YAML 1.1, no folding, documents
 * joined by "---"), with the justification comments when asked. Objects without a reasons
 * annotation skip the comment pass (it would add nothing); an undefined document is an empty line.
 * Each object is written by yaml-writer.ts (the same bytes as the yaml package, measured several
 * times faster), or by the package where the writer does not model the object.
 */
export function serializeObjects(objects: unknown[], comments: boolean): string {
  return objects
    .map((o) => {
      if (o === undefined) return '\n';
      if (comments && hasReasons(o))
        return writeYaml(o, { reasons: reasonsOf(o), segments: cachedFieldPath, wrap }) ?? toCommentedYaml([o]);
      return writeYaml(o) ?? (comments ? YAML.stringify(o, YAML_OPTIONS) : cdk8sYaml().stringify(o));
    })
    .join('---\n');
}

/**
 * cdk8s' Yaml, loaded when an object needs it: the serializer threads (serialize-worker.ts) load this
 * file, and most runs never call it (the writer models the objects), while loading cdk8s costs each
 * thread about 90 ms of CPU (measured: require('cdk8s') alone, node 20).
 */
function cdk8sYaml(): typeof Cdk8sYaml {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, see above
  return (require('cdk8s') as { Yaml: typeof Cdk8sYaml }).Yaml;
}

function hasReasons(obj: unknown): boolean {
  return (
    (obj as { metadata?: { annotations?: Record<string, unknown> } } | null)?.metadata?.annotations?.[
      ANNOTATIONS.reasons
    ] !== undefined
  );
}
