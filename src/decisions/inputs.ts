import { Duration } from 'cdk8s';
import { RollwiseInputError } from '../errors';
import { checkOverrideShape } from './decision';

/** Validation of raw inputs. Each check throws a RollwiseInputError naming input, value, why and fix. */

const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** A Kubernetes object / Service name: an RFC 1035 label (Services require it), at most 63 characters. */
/** The largest fleet rollwise plans for; beyond it, shard the service. */
export const MAX_REPLICAS = 1000;

export function checkName(input: string, value: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 63 || !DNS_1035_LABEL.test(value)) {
    throw new RollwiseInputError(
      input,
      value,
      'it becomes the name of the Deployment, Service and PodDisruptionBudget, and a Service name must be a DNS ' +
        'label (RFC 1035): 1-63 lower-case letters, digits or "-", starting with a letter and ending with a letter ' +
        'or digit; the API server rejects anything else at apply time, after the pipeline has already passed.',
      `use a name like "${suggestName(String(value ?? ''))}".`,
    );
  }
  return value;
}

function suggestName(v: string): string {
  const s = v
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+$/, '')
    .slice(0, 63);
  return s || 'my-service';
}

/** What is wrong with a value that should be a number, when it is not one at all ("" when it is). */
function notANumber(value: unknown): string {
  if (typeof value !== 'number')
    return `is ${value === undefined ? 'missing' : `a ${value === null ? 'null' : typeof value}`}, ` + 'not a number; ';
  if (Number.isNaN(value)) return 'is NaN (not a number); ';
  if (!Number.isFinite(value)) return `is ${value > 0 ? '' : 'negative '}Infinity; `;
  return '';
}

/** Kubernetes integer fields are int32 (most, e.g. probe thresholds, replicas, minReadySeconds). */
export const INT32_MAX = 2_147_483_647;

export function checkInteger(input: string, value: number, min: number, max: number, why: string, fix: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RollwiseInputError(
      input,
      value,
      `${notANumber(value)}must be a whole number from ${min} to ${max}: ${why}`,
      fix,
    );
  }
  return value;
}

export function checkPositive(input: string, value: number, why: string, fix: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RollwiseInputError(input, value, `${notANumber(value)}must be a finite number above 0: ${why}`, fix);
  }
  return value;
}

/**
 * A container port, 1-65535. A port below 1024 is allowed: binding it needs root or
 * CAP_NET_BIND_SERVICE below net.ipv4.ip_unprivileged_port_start (1024 by default; ip(7)), which
 * the restricted context drops, so the pod lowers that sysctl to the port (decidePodExtras). It is
 * a namespaced sysctl, per pod network namespace (Linux 4.11, commit 4548b683b781), in the "safe"
 * set the kubelet allows and Pod Security baseline and restricted admit
 * (kubernetes/pod-security-admission v0.28.0 policy/check_sysctls.go).
 */
export function checkPort(input: string, value: number): number {
  return checkInteger(
    input,
    value,
    1,
    65535,
    'it is the TCP port the container listens on, and the probes and the Service target it.',
    'give the port your server binds to, e.g. 8080.',
  );
}

const DNS_1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A namespace name: an RFC 1123 label, at most 63 characters. */
export function checkDnsLabel(input: string, value: string, example = 'envoy-gateway-system'): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 63 || !DNS_1123_LABEL.test(value)) {
    throw new RollwiseInputError(
      input,
      value ?? null,
      'must be a DNS label (RFC 1123): 1-63 lower-case letters, digits or "-", starting and ending with a letter or ' +
        'digit; the API server rejects anything else.',
      `use a name like "${example}".`,
    );
  }
  return value;
}

/** An object name such as a Gateway's: an RFC 1123 subdomain, at most 253 characters. */
export function checkDnsSubdomain(input: string, value: string, example = 'public'): string {
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > 253 ||
    !value.split('.').every((l) => l.length <= 63 && DNS_1123_LABEL.test(l))
  ) {
    throw new RollwiseInputError(
      input,
      value ?? null,
      'must be a DNS subdomain (RFC 1123): at most 253 characters of dot-separated labels of lower-case letters, ' +
        'digits or "-"; the API server rejects anything else.',
      `use a name like "${example}".`,
    );
  }
  return value;
}

/**
 * A Gateway API hostname (HTTPRoute spec.hostnames items): the pattern
 * `^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`, minLength 1 and
 * maxLength 253 of the HTTPRoute CRD (gateway-api-httproutes.yaml, bundle-version v1.6.1, the
 * pinned CRD in the shared schemas), plus DNS's 63-character label limit (RFC 1123).
 */
export function checkHostname(input: string, value: string): string {
  const ok =
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= 253 &&
    /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(value) &&
    value
      .replace(/^\*\./, '')
      .split('.')
      .every((l) => l.length <= 63);
  if (!ok) {
    throw new RollwiseInputError(
      input,
      value ?? null,
      'is not a DNS hostname (lower-case labels of letters, digits and "-" of at most 63 characters each, optionally ' +
        'starting with "*.", at most 253 characters); the Gateway API rejects it.',
      'use a hostname like "checkout.example.com".',
    );
  }
  return value;
}

/** HTTPRoute spec.hostnames maxItems (the same CRD). */
export const MAX_ROUTE_HOSTNAMES = 16;

/** Label syntax (Kubernetes): key = optional DNS-subdomain prefix + "/" + name of at most 63; value at most 63. */
export function checkLabels(input: string, labels: Record<string, string> | undefined): Record<string, string> {
  const name = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
  for (const [k, v] of Object.entries(labels ?? {})) {
    const i = k.lastIndexOf('/');
    const prefix = i < 0 ? undefined : k.slice(0, i);
    const keyName = i < 0 ? k : k.slice(i + 1);
    const prefixOk =
      prefix === undefined ||
      (prefix.length <= 253 && prefix.split('.').every((l) => l.length <= 63 && DNS_1123_LABEL.test(l)));
    if (!prefixOk || keyName.length === 0 || keyName.length > 63 || !name.test(keyName)) {
      throw new RollwiseInputError(
        `${input} key`,
        k,
        'is not a Kubernetes label key: an optional DNS-subdomain prefix and "/", then 1-63 letters, digits, "-", ' +
          '"_" or ".", starting and ending with a letter or digit; the API server rejects the object.',
        'use a key like "team" or "acme.com/cost-centre".',
      );
    }
    if (typeof v !== 'string' || v.length > 63 || (v !== '' && !name.test(v))) {
      throw new RollwiseInputError(
        `${input}.${k}`,
        v ?? null,
        'is not a Kubernetes label value: at most 63 letters, digits, "-", "_" or ".", starting and ending with a ' +
          'letter or digit (or empty); the API server rejects the object.',
        'use a value like "payments".',
      );
    }
  }
  return { ...(labels ?? {}) };
}

export function checkPath(input: string, value: string): string {
  if (typeof value !== 'string' || !value.startsWith('/') || /\s/.test(value)) {
    throw new RollwiseInputError(
      input,
      value,
      'an HTTP probe path must start with "/" and contain no whitespace; the kubelet would request something else ' +
        'than the handler you measured.',
      'give the path as the server routes it, e.g. "/healthz".',
    );
  }
  // Invisible characters (control and format characters: zero-width spaces and joiners, bidi
  // controls, the BOM, the soft hyphen) are percent-encoded into the request line: the kubelet
  // builds the probe's URL with Go's net/url (kubernetes pkg/probe/http/request.go: formatURL, then
  // http.NewRequest(GET, u.String()), which escapes the path; read from the index, no tag), so
  // /he\u200balth is requested as /he%E2%80%8Balth and the handler's route never matches, while
  // the path looks right in the manifest and in review.
  const hidden = (ch: string) => /[\p{Cc}\p{Cf}]/u.test(ch);
  const invisible = [...value].find(hidden);
  if (invisible !== undefined) {
    const hex = (invisible.codePointAt(0) ?? 0).toString(16).padStart(4, '0');
    throw new RollwiseInputError(
      input,
      [...value]
        .map((ch) => (hidden(ch) ? `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}` : ch))
        .join(''),
      `contains U+${hex.toUpperCase()}, an invisible character: it is sent percent-encoded ` +
        `(${encodeURI(invisible)}), so the request never matches the route the path looks like, and nothing in the ` +
        'manifest or a review shows it.',
      `type the path again without it: "${[...value].filter((ch) => !hidden(ch)).join('')}".`,
    );
  }
  return value;
}

/** Seconds in a Duration, with fractions (cdk8s' toSeconds() refuses non-integral values by default). */
export function seconds(d: Duration): number {
  return d.toSeconds({ integral: false });
}

export function checkDuration(
  input: string,
  value: Duration,
  minSeconds: number,
  maxSeconds: number,
  why: string,
  fix: string,
): number {
  if (!(value instanceof Duration)) {
    throw new RollwiseInputError(
      input,
      value ?? null,
      'must be a Duration (e.g. Duration.millis(250), Duration.seconds(60)).',
      `pass ${input} as a cdk8s Duration.`,
    );
  }
  const s = seconds(value);
  if (!Number.isFinite(s) || s < minSeconds || s > maxSeconds) {
    throw new RollwiseInputError(
      input,
      Number.isFinite(s) ? showSeconds(s) : String(s),
      `${Number.isFinite(s) ? '' : 'is not a finite duration; '}must be between ${showSeconds(minSeconds)} ` +
        `and ${showSeconds(maxSeconds)}: ${why}`,
      fix,
    );
  }
  return s;
}

/** A Duration that Kubernetes stores as an integer number of seconds (an int32 field). */
export function checkWholeSeconds(
  input: string,
  value: Duration,
  minSeconds: number,
  maxSeconds: number,
  why: string,
  fix: string,
): number {
  const s = checkDuration(input, value, minSeconds, maxSeconds, why, fix);
  if (!Number.isInteger(s)) {
    throw new RollwiseInputError(
      input,
      showSeconds(s),
      `must be a whole number of seconds, since the Kubernetes field it sets is an integer: ${why}`,
      `use Duration.seconds(${Math.ceil(s)}).`,
    );
  }
  return s;
}

/** A Duration written in Go notation (Envoy Gateway, Argo Rollouts): whole milliseconds, above 0. */
export function checkWholeMillis(
  input: string,
  value: Duration,
  minSeconds: number,
  maxSeconds: number,
  why: string,
  fix: string,
): number {
  const s = checkDuration(input, value, minSeconds, maxSeconds, why, fix);
  if (Math.abs(Math.round(s * 1000) - s * 1000) > 1e-6) {
    throw new RollwiseInputError(
      input,
      `${s * 1000} ms`,
      `must be a whole number of milliseconds, since it is written as a Go duration: ${why}`,
      `use Duration.millis(${Math.ceil(s * 1000)}).`,
    );
  }
  return s;
}

/**
 * The override values of an HttpService, typed at the boundary like props: each `value` of the
 * right type and range before any arithmetic uses it (the `because` is checked by withOverride).
 */
export function checkOverrideValues(o: OverrideValues | undefined): void {
  if (o === undefined) return;
  for (const [k, v] of Object.entries(o)) checkOverrideShape(`overrides.${k}`, v);
  const probe =
    'a probe threshold is an int32 count of consecutive results; beyond 30 a pod takes minutes to leave ' +
    'or return.';
  if (o.readinessFailureThreshold)
    checkInteger(
      'overrides.readinessFailureThreshold',
      o.readinessFailureThreshold.value,
      1,
      30,
      probe,
      'use a whole number such as 3.',
    );
  if (o.readinessSuccessThreshold)
    checkInteger(
      'overrides.readinessSuccessThreshold',
      o.readinessSuccessThreshold.value,
      1,
      30,
      probe,
      'use a whole number at least the failure threshold, such as 3.',
    );
  if (o.readinessTimeout)
    checkWholeSeconds(
      'overrides.readinessTimeout',
      o.readinessTimeout.value,
      1,
      59,
      'timeoutSeconds is an integer and must stay below the period.',
      'use whole seconds, e.g. Duration.seconds(3).',
    );
  if (o.minReadySeconds)
    checkWholeSeconds(
      'overrides.minReadySeconds',
      o.minReadySeconds.value,
      0,
      3600,
      'minReadySeconds is an int32 number of seconds.',
      'use whole seconds, e.g. Duration.seconds(45).',
    );
  if (o.proxyIdleTimeout)
    checkWholeMillis(
      'overrides.proxyIdleTimeout',
      o.proxyIdleTimeout.value,
      0.001,
      3600,
      'Envoy Gateway reads it as a Go duration.',
      'use e.g. Duration.seconds(3).',
    );
  if (o.proxyConnectTimeout)
    checkWholeMillis(
      'overrides.proxyConnectTimeout',
      o.proxyConnectTimeout.value,
      0.001,
      3600,
      'Envoy Gateway reads it as a Go duration.',
      'use e.g. Duration.seconds(3).',
    );
  if (o.retryOnReset)
    checkInteger(
      'overrides.retryOnReset',
      o.retryOnReset.value,
      1,
      3,
      'each retry multiplies the load a failing backend sees.',
      'use 1, 2 or 3.',
    );
  if (o.acceptKeepAliveRace && typeof o.acceptKeepAliveRace.value !== 'boolean') {
    throw new RollwiseInputError(
      'overrides.acceptKeepAliveRace',
      o.acceptKeepAliveRace.value ?? null,
      'must be true or false.',
      "use { value: true, because: '...' }.",
    );
  }
  if (o.acceptNoHeadroom && typeof o.acceptNoHeadroom.value !== 'boolean') {
    throw new RollwiseInputError(
      'overrides.acceptNoHeadroom',
      o.acceptNoHeadroom.value ?? null,
      'must be true or false.',
      "use { value: true, because: '...' }.",
    );
  }
  if (o.cpuLimit && typeof o.cpuLimit.value !== 'string') checkCpu('overrides.cpuLimit', o.cpuLimit.value);
}

/** The override values checkOverrideValues reads (structurally the same as HttpServiceOverrides). */
export interface OverrideValues {
  readonly readinessTimeout?: { readonly value: Duration };
  readonly readinessFailureThreshold?: { readonly value: number };
  readonly readinessSuccessThreshold?: { readonly value: number };
  readonly cpuLimit?: { readonly value: string };
  readonly minReadySeconds?: { readonly value: Duration };
  readonly proxyIdleTimeout?: { readonly value: Duration };
  readonly proxyConnectTimeout?: { readonly value: Duration };
  readonly acceptKeepAliveRace?: { readonly value: boolean };
  readonly acceptNoHeadroom?: { readonly value: boolean };
  readonly retryOnReset?: { readonly value: number };
}

/**
 * A duration in Go's notation, which Argo Rollouts, Envoy Gateway and Prometheus all read:
 * "3s", "10m", "1m30s", "1h", "500ms". `seconds` must be a positive whole number of milliseconds.
 */
export function formatGoDuration(seconds: number): string {
  const totalMs = Math.round(seconds * 1000);
  if (!(totalMs > 0) || Math.abs(totalMs - seconds * 1000) > 1e-6)
    throw new Error(`not a positive whole number of milliseconds: ${seconds} s`);
  const h = Math.floor(totalMs / 3_600_000);
  const m = Math.floor((totalMs % 3_600_000) / 60_000);
  const sec = Math.floor((totalMs % 60_000) / 1000);
  const ms = totalMs % 1000;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${sec ? `${sec}s` : ''}${ms ? `${ms}ms` : ''}`;
}

/** "250 ms", "1.5 s", "60 s": how durations appear in reasons and errors. */
export function showSeconds(s: number): string {
  if (s < 1) return `${round(s * 1000)} ms`;
  return `${round(s)} s`;
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** CPU quantity: "250m", "0.5", "2". Returns millicores. */
export function checkCpu(input: string, value: string): number {
  if (typeof value === 'number') {
    const v = value as number;
    const millis = Math.round(v * 1000);
    throw new RollwiseInputError(
      input,
      v,
      `is the number ${v}, and CPU quantities are strings here, as in a manifest ("250m", "0.5", "2" in quotes): a ` +
        'number would be a guess at the unit.',
      Number.isFinite(v) && v > 0 && Math.abs(millis - v * 1000) < 1e-6
        ? `write it as a string: "${millis}m" (or ` + `"${v}").`
        : 'write the CPU the pod needs at peak as millicores in a string, e.g. "250m".',
    );
  }
  const m = typeof value === 'string' ? /^(\d+(?:\.\d+)?)(m?)$/.exec(value) : null;
  const millis = m ? (m[2] ? Number(m[1]) : Number(m[1]) * 1000) : NaN;
  if (!m || !Number.isInteger(millis) || millis <= 0) {
    throw new RollwiseInputError(
      input,
      value,
      'is not a positive Kubernetes CPU quantity in whole millicores ("250m", "0.5", "2"); the scheduler places the ' +
        'pod and the kernel weights its CPU share from this number.',
      'write the CPU the pod needs at peak as millicores, e.g. "250m".',
    );
  }
  return millis;
}

const MEMORY_UNITS: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
};

/** Memory quantity: "512Mi", "1Gi". Returns bytes; refuses values too small to run any server. */
export function checkMemory(input: string, value: string): number {
  // a JavaScript caller may pass a number where the type says string
  const raw: unknown = value;
  if (typeof raw === 'number') {
    throw new RollwiseInputError(
      input,
      raw,
      `is the number ${raw}, and memory quantities are strings with a unit here, as in a manifest ("512Mi", "1Gi"): ` +
        `a bare number is bytes, and ${raw} bytes cannot run any server.`,
      `write it as a string with its unit, e.g. "${raw}Mi" if you meant mebibytes.`,
    );
  }
  const m = typeof value === 'string' ? /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(value) : null;
  if (!m) {
    throw new RollwiseInputError(
      input,
      value,
      'is not a Kubernetes memory quantity ("512Mi", "1Gi"); the memory limit is set equal to it, so a typo here is ' +
        'an OOM kill or a wasted node.',
      'write the memory the pod uses at peak with a binary unit, e.g. "512Mi".',
    );
  }
  const bytes = Number(m[1]) * MEMORY_UNITS[m[2] ?? ''];
  if (bytes < 16 * 1024 ** 2) {
    throw new RollwiseInputError(
      input,
      value,
      `is ${bytes} bytes, below 16Mi: the limit equals the request, so the container would be OOM-killed at start (a ` +
        'missing unit, "512" instead of "512Mi", is the usual cause).',
      `add the unit, e.g. "${m[1]}Mi".`,
    );
  }
  return bytes;
}
