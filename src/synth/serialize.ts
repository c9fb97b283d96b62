import { Yaml } from 'cdk8s';
import * as YAML from 'yaml';
import { toCommentedYaml, YAML_OPTIONS } from '../justify/comments';
import { ANNOTATIONS } from '../justify/annotations';

/**
 * Serializes manifest objects as cdk8s' `Yaml.stringify` does (YAML 1.1, no folding, documents
 * joined by "---"), with the justification comments when asked. Objects without a reasons
 * annotation skip the comment pass (it would add nothing); an undefined document is an empty line.
 */
export function serializeObjects(objects: unknown[], comments: boolean): string {
  if (!comments) return Yaml.stringify(...objects);
  return objects.map((o) => (o === undefined ? '\n' : hasReasons(o) ? toCommentedYaml([o]) : YAML.stringify(o, YAML_OPTIONS))).join('---\n');
}

function hasReasons(obj: unknown): boolean {
  return (obj as { metadata?: { annotations?: Record<string, unknown> } } | null)?.metadata?.annotations?.[ANNOTATIONS.reasons] !== undefined;
}
