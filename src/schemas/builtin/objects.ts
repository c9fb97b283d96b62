import { requirementMatches } from '../../checks/go-values';
import { Add, arr, Json, rec, show } from './common';
import { podSecurityLabelProblems } from './metadata';
import { configMapKeyProblem } from './names';

/**
 * Kind-specific rules of core, apps and batch validation.go: Service types, workload selectors against their
 * templates, ConfigMap and Secret data, a CronJob's schedule.
 * Split from src/schemas/builtin.ts (issue 26); each check cites its source where it is.
 */

/** core types.go MaxSecretSize: the most a ConfigMap's or Secret's data may hold, 1 MiB. */
export const MAX_SECRET_SIZE = 1024 * 1024;

/** Standard base64 with padding, as Go's encoding/json decodes a []byte field (\r and \n are skipped). */
function isBase64(v: string): boolean {
  return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v.replace(/[\r\n]/g, ''));
}

function base64Bytes(v: string): number {
  const t = v.replace(/[\r\n]/g, '');
  return (t.length / 4) * 3 - (t.endsWith('==') ? 2 : t.endsWith('=') ? 1 : 0);
}

/** The values of the Service spec.type (core ValidateService supportedServiceType). */
const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];

/**
 * Kinds whose pod template must carry the selector's labels (apps validation ValidateDeploymentSpec,
 * ValidateReplicaSetSpec, ValidateDaemonSetSpec).
 */
const SELECTOR_TEMPLATE_KINDS: Record<string, string> = {
  'apps/Deployment': 'ValidateDeploymentSpec',
  'apps/ReplicaSet': 'ValidateReplicaSetSpec',
  'apps/DaemonSet': 'ValidateDaemonSetSpec',
};

/** Whether a label selector (matchLabels and matchExpressions) selects `labels`; undefined when it is malformed. */
function selects(selector: Json, labels: Record<string, unknown>): boolean | undefined {
  for (const [k, v] of Object.entries(rec(selector.matchLabels) ?? {})) if (labels[k] !== v) return false;
  for (const e0 of arr(selector.matchExpressions)) {
    const e = rec(e0);
    if (!e || typeof e.key !== 'string') return undefined;
    const matches = requirementMatches(e.operator, e.key, arr(e.values), labels);
    if (matches !== true) return matches; // false, or undefined for an operator none of the four
  }
  return true;
}

/**
 * Rules of single kinds, read in the stored kubernetes/kubernetes copies (core validation.go, a
 * 1.33-era file; apps and batch validation; the same rules at v1.28.0):
 * - Service: spec.type one of ClusterIP, NodePort, LoadBalancer, ExternalName (ValidateService).
 * - ConfigMap: data and binaryData keys by IsConfigMapKey, no key in both, binaryData base64, the
 *   values at most MaxSecretSize (1 MiB) in all (ValidateConfigMap).
 * - Secret: data values base64 (the JSON decoder of a []byte field refuses anything else before
 *   validation), data and stringData keys by IsConfigMapKey, at most 1 MiB in all (ValidateSecret;
 *   stringData is merged into data first).
 * - Deployment, ReplicaSet, DaemonSet: a non-empty selector that selects the pod template's labels
 *   ("`selector` does not match template `labels`"), and a template with restartPolicy Always and
 *   no activeDeadlineSeconds (ValidatePodTemplateSpecForReplicaSet).
 * - CronJob: spec.schedule as robfig/cron v3.0.1 ParseStandard parses it, and no TZ/CRON_TZ in it
 *   on create (batch validateScheduleFormat).
 * - Namespace: the Pod Security labels as the pod-security-admission plugin reads them on create
 *   (admission.go ValidateNamespace -> api PolicyToEvaluate: levels privileged, baseline,
 *   restricted; versions "latest" or "v1.<n>"); an invalid one refuses the Namespace.
 */
export function kindSpecificRules(o: Json, add: Add): void {
  const group = typeof o.apiVersion === 'string' && o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : '';
  const spec = rec(o.spec);
  if (
    group === '' &&
    o.kind === 'Service' &&
    spec &&
    spec.type !== undefined &&
    !SERVICE_TYPES.includes(String(spec.type))
  ) {
    add('/spec/type', `${show(spec.type)} is not supported (${SERVICE_TYPES.join(', ')}; core: ValidateService)`);
  }
  if (group === '' && (o.kind === 'ConfigMap' || o.kind === 'Secret')) dataRules(o, add);
  if (group === '' && o.kind === 'Namespace') {
    for (const p of podSecurityLabelProblems(rec(rec(o.metadata)?.labels) ?? {}))
      add(`/metadata/labels/${p.key}`, p.message);
  }
  const rule = SELECTOR_TEMPLATE_KINDS[`${group}/${String(o.kind)}`];
  if (rule && spec) {
    const selector = rec(spec.selector);
    const tmpl = rec(spec.template);
    if (!selector) add('/spec/selector', `is required (apps: ${rule})`);
    else if (Object.keys(rec(selector.matchLabels) ?? {}).length + arr(selector.matchExpressions).length === 0)
      add('/spec/selector', `an empty selector is invalid (it would select every pod of the namespace; apps: ${rule})`);
    else if (selects(selector, rec(rec(tmpl?.metadata)?.labels) ?? {}) === false)
      add(
        '/spec/template/metadata/labels',
        `${show(rec(rec(tmpl?.metadata)?.labels) ?? {})} is not selected by spec.selector ${show(selector)}: ` +
          `"\`selector\` does not match template \`labels\`" (apps: ${rule}); the controller could not own the pods it ` +
          'creates',
      );
    const ps = rec(tmpl?.spec);
    if (ps && ps.restartPolicy !== undefined && ps.restartPolicy !== 'Always')
      add(
        '/spec/template/spec/restartPolicy',
        `${show(ps.restartPolicy)} is not supported for a ${String(o.kind)}'s pods (Always; apps: ` +
          'ValidatePodTemplateSpecForReplicaSet)',
      );
    if (ps && ps.activeDeadlineSeconds !== undefined && ps.activeDeadlineSeconds !== null)
      add(
        '/spec/template/spec/activeDeadlineSeconds',
        `is forbidden for a ${String(o.kind)}'s pods (apps: ValidatePodTemplateSpecForReplicaSet)`,
      );
  }
  if (group === 'batch' && o.kind === 'CronJob' && spec && typeof spec.schedule === 'string') {
    const p = cronScheduleProblem(spec.schedule);
    if (p) add('/spec/schedule', `${show(spec.schedule)} ${p} (batch: validateScheduleFormat)`);
  }
}

function dataRules(o: Json, add: Add): void {
  let total = 0;
  const data = rec(o.data) ?? {};
  const keyRule = o.kind === 'Secret' ? 'ValidateSecret' : 'ValidateConfigMap';
  const stringData = o.kind === 'Secret' ? (rec(o.stringData) ?? {}) : {};
  for (const [k, v] of Object.entries(data)) {
    const p = configMapKeyProblem(k);
    if (p) add(`/data/${k}`, `the key ${show(k)} ${p} (apimachinery IsConfigMapKey; core: ${keyRule})`);
    if (typeof v !== 'string') continue;
    if (o.kind === 'Secret') {
      if (!isBase64(v))
        add(
          `/data/${k}`,
          "is not base64: a Secret's data values are base64-encoded bytes, and the API server refuses the request " +
            'when one does not decode ("illegal base64 data"); put plain text in stringData',
          v,
        );
      else if (!(k in stringData)) total += base64Bytes(v);
    } else total += Buffer.byteLength(v);
  }
  for (const [k, v] of Object.entries(stringData)) {
    const p = configMapKeyProblem(k);
    if (p) add(`/stringData/${k}`, `the key ${show(k)} ${p} (apimachinery IsConfigMapKey; core: ValidateSecret)`);
    if (typeof v === 'string') total += Buffer.byteLength(v);
  }
  if (o.kind === 'ConfigMap') {
    for (const [k, v] of Object.entries(rec(o.binaryData) ?? {})) {
      const p = configMapKeyProblem(k);
      const key = show(k);
      if (p) add(`/binaryData/${k}`, `the key ${key} ${p} (apimachinery IsConfigMapKey; core: ValidateConfigMap)`);
      if (k in data)
        add(
          `/data/${k}`,
          `the key ${key} is also in binaryData (core: ValidateConfigMap, "duplicate of key present in binaryData")`,
        );
      if (typeof v !== 'string') continue;
      if (!isBase64(v))
        add(
          `/binaryData/${k}`,
          'is not base64 (binaryData values are base64-encoded bytes; the API server refuses the request)',
          v,
        );
      else total += base64Bytes(v);
    }
  }
  if (total > MAX_SECRET_SIZE)
    add(
      '/',
      `the ${String(o.kind)}'s data is ${total} bytes, more than the 1 MiB (${MAX_SECRET_SIZE} bytes) the API server ` +
        `allows (core: ${keyRule}, MaxSecretSize)`,
    );
}

const CRON_FIELDS: readonly { name: string; min: number; max: number; names?: readonly string[] }[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
  },
  { name: 'day of week', min: 0, max: 6, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

/**
 * A CronJob schedule as the API server parses it on create: robfig/cron v3.0.1 ParseStandard
 * (parser.go: five whitespace-separated fields, each a comma list of `*`/`?`, a number or a name,
 * a range, each with an optional /step; or a descriptor @yearly, @annually, @monthly, @weekly,
 * @daily, @midnight, @hourly, @every <Go duration>), then batch validateScheduleFormat refuses
 * any "TZ" in it (use spec.timeZone). Returns the problem, or undefined.
 */
export function cronScheduleProblem(schedule: string): string | undefined {
  if (schedule === '') return 'is empty';
  if (schedule.includes('TZ'))
    return (
      'contains TZ or CRON_TZ: the API server refuses a time zone in the schedule on ' + 'create (use spec.timeZone)'
    );
  if (schedule.startsWith('@')) {
    if (['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'].includes(schedule))
      return undefined;
    if (schedule.startsWith('@every '))
      return /^[-+]?(0|([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+)$/.test(schedule.slice(7)) &&
        /[0-9]/.test(schedule.slice(7))
        ? undefined
        : 'is not a Go duration after "@every"';
    return (
      'is not a known descriptor (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, @every ' +
      '<duration>)'
    );
  }
  const fields = schedule.split(/[ \t\n\r\v\f]+/).filter(Boolean);
  if (fields.length !== 5)
    return (
      'is not a cron schedule: expected exactly 5 fields (minute hour day-of-month month ' +
      `day-of-week), found ${fields.length}`
    );
  for (let f = 0; f < 5; f++) {
    const b = CRON_FIELDS[f];
    const num = (x: string): number | undefined => {
      const i = b.names?.indexOf(x.toLowerCase()) ?? -1;
      if (i >= 0) return i + b.min;
      return /^[+-]?[0-9]+$/.test(x) && Number(x) >= 0 ? Number(x) : undefined;
    };
    for (const expr of fields[f].split(',').filter((x) => x !== '')) {
      const [range, step, ...extraSlash] = expr.split('/');
      if (extraSlash.length > 0) return `has too many slashes in ${b.name} "${expr}"`;
      const lohi = range.split('-');
      let start: number | undefined;
      let end: number | undefined;
      if (lohi[0] === '*' || lohi[0] === '?') {
        start = b.min;
        end = b.max;
      } else {
        if (lohi.length > 2) return `has too many hyphens in ${b.name} "${expr}"`;
        start = num(lohi[0]);
        end = lohi.length === 2 ? num(lohi[1]) : start;
        if (start === undefined || end === undefined)
          return (
            `has "${expr}" where the ${b.name} must be a ` + `number${b.names ? ' or a name' : ''}, a range or "*"`
          );
      }
      if (step !== undefined) {
        if (!/^[+-]?[0-9]+$/.test(step) || Number(step) < 0)
          return `has the step "${step}" in ${b.name} "${expr}", ` + 'not a number';
        if (lohi.length === 1 && lohi[0] !== '*' && lohi[0] !== '?') end = b.max;
        if (Number(step) === 0) return `has a step of 0 in ${b.name} "${expr}"`;
      }
      if (start < b.min) return `has ${b.name} ${start} below the minimum ${b.min} in "${expr}"`;
      if (end > b.max) return `has ${b.name} ${end} above the maximum ${b.max} in "${expr}"`;
      if (start > end) return `has a ${b.name} range that starts after it ends in "${expr}"`;
    }
  }
  return undefined;
}
