import { Duration } from 'cdk8s';
import { RollwiseInputError } from '../errors';

/** Validation of raw inputs. Each check throws a RollwiseInputError naming input, value, why and fix. */

const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** A Kubernetes object / Service name: an RFC 1035 label (Services require it), at most 63 characters. */
export function checkName(input: string, value: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 63 || !DNS_1035_LABEL.test(value)) {
    throw new RollwiseInputError(
      input,
      value,
      'it becomes the name of the Deployment, Service and PodDisruptionBudget, and a Service name must be a DNS label (RFC 1035): 1-63 lower-case letters, digits or "-", starting with a letter and ending with a letter or digit; the API server rejects anything else at apply time, after the pipeline has already passed.',
      `use a name like "${suggestName(String(value ?? ''))}".`,
    );
  }
  return value;
}

function suggestName(v: string): string {
  const s = v.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^[^a-z]+/, '').replace(/-+$/, '').slice(0, 63);
  return s || 'my-service';
}

export function checkInteger(input: string, value: number, min: number, max: number, why: string, fix: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RollwiseInputError(input, value, `must be a whole number from ${min} to ${max}: ${why}`, fix);
  }
  return value;
}

export function checkPositive(input: string, value: number, why: string, fix: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RollwiseInputError(input, value, `must be a finite number above 0: ${why}`, fix);
  }
  return value;
}

export function checkPort(input: string, value: number): number {
  return checkInteger(input, value, 1, 65535, 'it is the TCP port the container listens on, and the probes and the Service target it.', 'give the port your server binds to, e.g. 8080 (ports below 1024 need root, which the restricted security context forbids).');
}

export function checkPath(input: string, value: string): string {
  if (typeof value !== 'string' || !value.startsWith('/') || /\s/.test(value)) {
    throw new RollwiseInputError(input, value, 'an HTTP probe path must start with "/" and contain no whitespace; the kubelet would request something else than the handler you measured.', 'give the path as the server routes it, e.g. "/healthz".');
  }
  return value;
}

/** Seconds in a Duration, with fractions (cdk8s' toSeconds() refuses non-integral values by default). */
export function seconds(d: Duration): number {
  return d.toSeconds({ integral: false });
}

export function checkDuration(input: string, value: Duration, minSeconds: number, maxSeconds: number, why: string, fix: string): number {
  if (!(value instanceof Duration)) {
    throw new RollwiseInputError(input, value, 'must be a Duration (e.g. Duration.millis(250), Duration.seconds(60)).', `pass ${input} as a cdk8s Duration.`);
  }
  const s = seconds(value);
  if (!Number.isFinite(s) || s < minSeconds || s > maxSeconds) {
    throw new RollwiseInputError(input, showSeconds(s), `must be between ${showSeconds(minSeconds)} and ${showSeconds(maxSeconds)}: ${why}`, fix);
  }
  return s;
}

/**
 * A duration in Go's notation, which Argo Rollouts, Envoy Gateway and Prometheus all read:
 * "3s", "10m", "1m30s", "1h", "500ms". `seconds` must be a positive whole number of milliseconds.
 */
export function formatGoDuration(seconds: number): string {
  const totalMs = Math.round(seconds * 1000);
  if (!(totalMs > 0) || Math.abs(totalMs - seconds * 1000) > 1e-6) throw new Error(`not a positive whole number of milliseconds: ${seconds} s`);
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
  const m = typeof value === 'string' ? /^(\d+(?:\.\d+)?)(m?)$/.exec(value) : null;
  const millis = m ? (m[2] ? Number(m[1]) : Number(m[1]) * 1000) : NaN;
  if (!m || !Number.isInteger(millis) || millis <= 0) {
    throw new RollwiseInputError(input, value, 'is not a positive Kubernetes CPU quantity in whole millicores ("250m", "0.5", "2"); the scheduler places the pod and the kernel weights its CPU share from this number.', 'write the CPU the pod needs at peak as millicores, e.g. "250m".');
  }
  return millis;
}

const MEMORY_UNITS: Record<string, number> = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };

/** Memory quantity: "512Mi", "1Gi". Returns bytes; refuses values too small to run any server. */
export function checkMemory(input: string, value: string): number {
  const m = typeof value === 'string' ? /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(value) : null;
  if (!m) {
    throw new RollwiseInputError(input, value, 'is not a Kubernetes memory quantity ("512Mi", "1Gi"); the memory limit is set equal to it, so a typo here is an OOM kill or a wasted node.', 'write the memory the pod uses at peak with a binary unit, e.g. "512Mi".');
  }
  const bytes = Number(m[1]) * MEMORY_UNITS[m[2] ?? ''];
  if (bytes < 16 * 1024 ** 2) {
    throw new RollwiseInputError(input, value, `is ${bytes} bytes, below 16Mi: the limit equals the request, so the container would be OOM-killed at start (a missing unit, "512" instead of "512Mi", is the usual cause).`, `add the unit, e.g. "${m[1]}Mi".`);
  }
  return bytes;
}
