import { Yaml } from 'cdk8s';
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
      return writeYaml(o) ?? (comments ? YAML.stringify(o, YAML_OPTIONS) : Yaml.stringify(o));
    })
    .join('---\n');
}

function hasReasons(obj: unknown): boolean {
  return (
    (obj as { metadata?: { annotations?: Record<string, unknown> } } | null)?.metadata?.annotations?.[
      ANNOTATIONS.reasons
    ] !== undefined
  );
}
