/**
 * What the Cloud SQL Auth Proxy v2 (gcr.io/cloud-sql-connectors/cloud-sql-proxy) does with the
 * command, args and environment of its container, read the way the proxy reads them. One
 * implementation for synth (sidecars, src/decisions/sidecar-images.ts) and for `rollwise lint`
 * (RW111-RW113, src/rules/sidecar-rules.ts). Facts from GoogleCloudPlatform/cloud-sql-proxy at
 * v2.14.1 unless a version says otherwise:
 *
 * - Flags are cobra/pflag flags (cmd/root.go NewCommand; go.mod: spf13/cobra v1.8.1, spf13/pflag
 *   v1.0.5): `--name=value` and `--name value` for a string or number, `--name` alone (true) or
 *   `--name=false` for a bool (`--name false` leaves "false" as an instance name), the last of a
 *   repeated flag wins, `--` ends the flags; shorthands -a (address), -p (port), -u, -t, -c, -j,
 *   -g, -l, -i, -h, -v. A bool value is strconv.ParseBool's (1, t, T, TRUE, true, True and their
 *   false forms); anything else fails the parse and the proxy exits.
 * - A flag not given on the command line is read from the environment variable "CSQL_PROXY_" plus
 *   the flag's name upper-cased with "-" replaced by "_" (cmd/root.go initViper: SetEnvPrefix
 *   ("CSQL_PROXY"), SetEnvKeyReplacer("-" -> "_"), AutomaticEnv; loadConfig sets every unchanged
 *   flag from viper; the help text "Configuration using environment variables", cmd/root.go
 *   227-240): --health-check is CSQL_PROXY_HEALTH_CHECK, --http-address CSQL_PROXY_HTTP_ADDRESS.
 *   Flags win over the environment, the environment over --config-file. An empty variable counts
 *   as unset (spf13/viper getEnv: `ok && (v.allowEmptyEnv || val != "")`, read in the code index),
 *   and a bool variable that ParseBool refuses is dropped silently (loadConfig discards the error
 *   of c.Flags().Set), leaving the default.
 * - `--health-check` (default false) starts the HTTP server with /startup, /liveness and
 *   /readiness (runSignalWrapper: mux.HandleFunc); it listens on `--http-address` (default
 *   "localhost") and `--http-port` (default "9090") (globalFlags httpAddressFlag, httpPortFlag).
 *   The kubelet probes the pod's IP (kubelet prober: the host defaults to status.PodIP), so a
 *   localhost listener refuses every probe. The same defaults since v2.0.0 (cmd/root.go v2.0.0,
 *   v2.8.0, v2.11.0).
 * - The database listeners bind `--address` (-a, default "127.0.0.1"), or an instance's
 *   `?address=` query parameter (parseConfig).
 * - The image's ENTRYPOINT is ["/cloud-sql-proxy"] (Dockerfile, Dockerfile.alpine), so `args` are
 *   its arguments unless `command` replaces the entrypoint.
 */

/** A container as the proxy check reads it: from the decisions (synth) or from a manifest (lint). */
export interface ProxyContainer {
  readonly command?: readonly unknown[];
  readonly args?: readonly unknown[];
  /** The container's env list, as the API has it. */
  readonly env?: readonly { readonly name?: unknown; readonly value?: unknown; readonly valueFrom?: unknown }[];
  readonly envFrom?: readonly unknown[];
}

/** One setting as the proxy ends up with it, and where it came from. */
export interface ProxySetting {
  /** The value, or undefined when it cannot be known here (a Secret, a ConfigMap, a config file). */
  readonly value: string | undefined;
  /** Where it came from, for messages: `the flag "--http-port=9801"`, `CSQL_PROXY_HTTP_PORT="9801"`, `its default`. */
  readonly source: string;
  /** Which part of the container holds it: "args", "command", "env.CSQL_PROXY_..." or "" for a default. */
  readonly field: string;
  /** An environment variable's value as written. */
  readonly given?: string;
}

/** The proxy's configuration, read from a container. */
export interface ProxyConfig {
  /** Why the flags cannot be read at all (the proxy started by a shell script), or undefined. */
  readonly unreadable?: string;
  readonly healthCheck: ProxySetting;
  readonly httpAddress: ProxySetting;
  readonly httpPort: ProxySetting;
  readonly address: ProxySetting;
  /** Instance connection names with an `?address=` of their own: [name, address]. */
  readonly instanceAddresses: readonly (readonly [string, string])[];
  /**
   * The instance connection names the proxy connects to, without their `?` options: the
   * arguments, else CSQL_PROXY_INSTANCE_CONNECTION_NAME (or _0), _1, ... as literal env values
   * (cmd/root.go loadConfig, instanceFromEnv, v2.14.1); empty when they come from a Secret or a
   * config file rollwise cannot read.
   */
  readonly instances: readonly string[];
  /** Arguments the proxy refuses at start (it exits): a flag without its value, a bool that does not parse. */
  readonly refused: readonly string[];
  /** The arguments the proxy parses, as given. */
  readonly argv: readonly string[];
}

const ENV_PREFIX = 'CSQL_PROXY_';
/** The proxy's bool flags (cmd/root.go v2.14.1: every BoolVar/BoolVarP, with cobra's help and version). */
const BOOL_FLAGS = new Set([
  'help',
  'version',
  'gcloud-auth',
  'structured-logs',
  'debug-logs',
  'disable-traces',
  'disable-metrics',
  'exit-zero-on-sigterm',
  'prometheus',
  'debug',
  'quitquitquit',
  'health-check',
  'quiet',
  'auto-ip',
  'lazy-refresh',
  'run-connection-test',
  'auto-iam-authn',
  'private-ip',
  'psc',
]);
/** Its shorthands (cmd/root.go v2.14.1 ...VarP, BoolP). */
const SHORTHANDS: Readonly<Record<string, string>> = {
  h: 'help',
  v: 'version',
  t: 'token',
  c: 'credentials-file',
  j: 'json-credentials',
  g: 'gcloud-auth',
  l: 'structured-logs',
  a: 'address',
  p: 'port',
  u: 'unix-socket',
  i: 'auto-iam-authn',
};
const DEFAULTS: Readonly<Record<string, string>> = {
  'health-check': 'false',
  'http-address': 'localhost',
  'http-port': '9090',
  address: '127.0.0.1',
};
/** strconv.ParseBool (Go 1.22): the only spellings a bool flag takes. */
const TRUE = ['1', 't', 'T', 'TRUE', 'true', 'True'];
const FALSE = ['0', 'f', 'F', 'FALSE', 'false', 'False'];
const SHELLS = /^(sh|bash|ash|dash|zsh|busybox)$/;

const basename = (s: string) => s.split('/').pop() ?? s;

/**
 * Whether the image is the Cloud SQL Auth Proxy v2 (any registry mirror keeps the name); v1 is isCloudSqlProxyV1Image.
 */
export function isCloudSqlProxyImage(image: string): boolean {
  return /(^|\/)cloud-sql-proxy[:@]/.test(image) && !isCloudSqlProxyV1Image(image);
}

/** The proxy's version from its tag ("2.14.1-alpine" -> [2, 14, 1]); undefined for a digest or another tag. */
export function proxyVersion(image: string): [number, number, number] | undefined {
  const last = image.split('/').pop() ?? '';
  if (last.includes('@')) return undefined;
  const m = /:v?(\d+)\.(\d+)\.(\d+)/.exec(last);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/**
 * Whether the proxy's /readiness dials the database: always in v1 (gce-proxy), every registered instance up to v2.11.0
 * (internal/healthcheck/healthcheck.go HandleReadiness -> internal/proxy/proxy.go CheckConnections);
 * from v2.11.1 it answers from its own state ("fix: don't depend on downstream in readiness check",
 * #2207, first in tag v2.11.1). Undefined when the version is unknown (a digest).
 */
export function readinessDialsDatabase(image: string): boolean | undefined {
  if (isCloudSqlProxyV1Image(image)) return true; // v1's isReady dials every instance (see isCloudSqlProxyV1Image)
  const v = proxyVersion(image);
  if (v === undefined) return undefined;
  const min = [2, 11, 1];
  for (let i = 0; i < 3; i++) if (v[i] !== min[i]) return v[i] < min[i];
  return false;
}

/**
 * The literal values of the container's env (the last of a repeated name wins, as the kubelet builds it), and the names
 * set from a Secret, a ConfigMap or a field.
 */
function envOf(c: ProxyContainer): { literal: Map<string, string>; referenced: Set<string>; fromObjects: boolean } {
  const literal = new Map<string, string>();
  const referenced = new Set<string>();
  for (const e of c.env ?? []) {
    if (typeof e?.name !== 'string') continue;
    if (e.valueFrom !== undefined) {
      literal.delete(e.name);
      referenced.add(e.name);
    } else {
      referenced.delete(e.name);
      literal.set(e.name, typeof e.value === 'string' ? e.value : '');
    }
  }
  return { literal, referenced, fromObjects: (c.envFrom ?? []).length > 0 };
}

/**
 * `$(VAR)` in command and args, expanded from the container's literal env as the kubelet does (`$$` escapes); an
 * unknown reference stays as written.
 */
function expand(s: string, env: Map<string, string>): string {
  return s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) =>
    name === undefined ? '$' : (env.get(name) ?? m),
  );
}

/** The proxy's configuration from its container's command, args and env. */
export function readProxyConfig(c: ProxyContainer): ProxyConfig {
  const env = envOf(c);
  const strings = (x: readonly unknown[] | undefined) => (x ?? []).map((v) => expand(String(v), env.literal));
  const command = strings(c.command);
  const args = strings(c.args);
  let argv: string[];
  /** Where each argument was written: command or args. */
  let origin: ('command' | 'args')[];
  let unreadable: string | undefined;
  if (command.length === 0) {
    argv = args; // the image's ENTRYPOINT ["/cloud-sql-proxy"] (Dockerfile, v2.14.1)
    origin = args.map(() => 'args');
  } else {
    const at = command.findIndex((x) => basename(x) === 'cloud-sql-proxy');
    if (at >= 0) {
      argv = [...command.slice(at + 1), ...args];
      origin = [...command.slice(at + 1).map(() => 'command' as const), ...args.map(() => 'args' as const)];
    } else {
      origin = [];
      argv = [];
      unreadable = SHELLS.test(basename(command[0]))
        ? `the proxy is started by a shell (${JSON.stringify(command)}), whose script rollwise does not run`
        : `command ${JSON.stringify(command)} does not run /cloud-sql-proxy itself, so rollwise cannot tell which ` +
          'arguments reach it';
    }
  }

  const flags = new Map<string, { value: string; arg: string; field: 'command' | 'args' }>();
  const refused: string[] = [];
  const positional: string[] = [];
  let i = 0;
  const set = (name: string, value: string, arg: string) => {
    if (BOOL_FLAGS.has(name) && ![...TRUE, ...FALSE].includes(value))
      refused.push(`${arg}: "${value}" is not a bool (strconv.ParseBool), so the proxy exits at start`);
    else flags.set(name, { value, arg, field: origin[i] });
  };
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('--') && a.length > 2) {
      const eq = a.indexOf('=');
      const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
      if (eq >= 0) set(name, a.slice(eq + 1), a);
      else if (BOOL_FLAGS.has(name)) set(name, 'true', a);
      else if (i + 1 < argv.length) {
        set(name, argv[i + 1], `${a} ${argv[i + 1]}`);
        i++;
      } else refused.push(`${a}: the flag needs a value and none follows, so the proxy exits at start`);
    } else if (a.startsWith('-') && a.length > 1) {
      // a cluster of shorthands (-gl, -a0.0.0.0, -a=0.0.0.0, -a 0.0.0.0), as pflag parses it
      for (let j = 1; j < a.length; j++) {
        const name = SHORTHANDS[a[j]];
        if (name === undefined) break; // pflag refuses it ("unknown shorthand flag"), nothing to read
        if (a[j + 1] === '=') {
          set(name, a.slice(j + 2), a);
          break;
        }
        if (BOOL_FLAGS.has(name)) {
          set(name, 'true', a);
          continue;
        }
        if (j + 1 < a.length) {
          set(name, a.slice(j + 1), a);
          break;
        }
        if (i + 1 < argv.length) {
          set(name, argv[i + 1], `${a} ${argv[i + 1]}`);
          i++;
        } else refused.push(`${a}: the flag needs a value and none follows, so the proxy exits at start`);
        break;
      }
    } else positional.push(a);
  }

  const configFile = flags.get('config-file')?.value ?? (env.literal.get(`${ENV_PREFIX}CONFIG_FILE`) || undefined);
  const setting = (name: string): ProxySetting => {
    const flag = flags.get(name);
    if (flag) return { value: flag.value, source: `the flag "${flag.arg}"`, field: flag.field };
    const envName = `${ENV_PREFIX}${name.toUpperCase().replace(/-/g, '_')}`;
    const fromEnv = env.literal.get(envName);
    if (fromEnv !== undefined && fromEnv !== '') {
      if (BOOL_FLAGS.has(name) && ![...TRUE, ...FALSE].includes(fromEnv)) {
        return {
          value: DEFAULTS[name],
          source:
            `${envName}="${fromEnv}", which is no bool (strconv.ParseBool) and ` +
            'so is dropped without a word (cmd/root.go loadConfig discards the error), leaving the ' +
            `default ${DEFAULTS[name]}`,
          field: `env.${envName}`,
          given: fromEnv,
        };
      }
      return { value: fromEnv, source: `${envName}="${fromEnv}"`, field: `env.${envName}`, given: fromEnv };
    }
    if (env.referenced.has(envName))
      return {
        value: undefined,
        source: `${envName}, set from a Secret, ConfigMap or field that rollwise cannot read`,
        field: `env.${envName}`,
      };
    if (env.fromObjects)
      return { value: undefined, source: `not on the command line, and envFrom may set ${envName}`, field: 'envFrom' };
    if (configFile !== undefined)
      return {
        value: undefined,
        source: `not on the command line or in the environment, and the config file ${configFile} may set it`,
        field: 'args',
      };
    return { value: DEFAULTS[name], source: 'its default', field: '' };
  };
  const instanceAddresses: [string, string][] = [];
  for (const p of positional) {
    const q = p.indexOf('?');
    if (q < 0) continue;
    const address = new URLSearchParams(p.slice(q + 1)).get('address');
    if (address !== null) instanceAddresses.push([p.slice(0, q), address]);
  }
  const instances = positional.map((p) => p.split('?')[0]).filter((p) => p !== '');
  if (instances.length === 0 && unreadable === undefined) {
    const first =
      env.literal.get(`${ENV_PREFIX}INSTANCE_CONNECTION_NAME`) ||
      env.literal.get(`${ENV_PREFIX}INSTANCE_CONNECTION_NAME_0`);
    if (first) {
      instances.push(first.split('?')[0]);
      for (let n = 1; env.literal.get(`${ENV_PREFIX}INSTANCE_CONNECTION_NAME_${n}`); n++)
        instances.push((env.literal.get(`${ENV_PREFIX}INSTANCE_CONNECTION_NAME_${n}`) as string).split('?')[0]);
    }
  }
  return {
    unreadable,
    healthCheck: setting('health-check'),
    httpAddress: setting('http-address'),
    httpPort: setting('http-port'),
    address: setting('address'),
    instanceAddresses,
    instances,
    refused,
    argv,
  };
}

/** A problem of the proxy's configuration, for synth (error: refused; warning: said) and lint (the rule's severity). */
export interface ProxyProblem {
  readonly severity: 'error' | 'warning';
  /** The container field that holds the cause ("args", "command", "env.CSQL_PROXY_HEALTH_CHECK", "envFrom"). */
  readonly field: string;
  /** What the proxy was given there. */
  readonly shown: string;
  readonly why: string;
  readonly fix: string;
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i;

/**
 * Why the kubelet's probes on `port` cannot reach the proxy's health server (it is not started,
 * listens on localhost, or on another port), each with the fix; empty when they can. A value
 * rollwise cannot read (a Secret, a config file, a shell script) is a warning, never a refusal.
 */
export function proxyHealthProblems(c: ProxyContainer, port: number): ProxyProblem[] {
  const cfg = readProxyConfig(c);
  const out: ProxyProblem[] = [];
  const shownArgs = JSON.stringify(cfg.argv);
  const flagsFix = `"--health-check", "--http-address=0.0.0.0" and "--http-port=${port}"`;
  if (cfg.unreadable) {
    return [
      {
        severity: 'warning',
        field: 'command',
        shown: JSON.stringify(c.command),
        why:
          `${cfg.unreadable}: whether the health server the probes ask on port ${port} is started, on the pod's IP and ` +
          'on that port cannot be checked.',
        fix:
          'run /cloud-sql-proxy as the command (or leave command out: the ' +
          `image's entrypoint is /cloud-sql-proxy) with ${flagsFix}.`,
      },
    ];
  }
  for (const r of cfg.refused)
    out.push({
      severity: 'error',
      field: 'args',
      shown: shownArgs,
      why: `${r} (cloud-sql-proxy v2.14.1, pflag): the pod never becomes Ready.`,
      fix: 'give the flag its value (e.g. "--http-port=9801"), or "--health-check" alone for the bool.',
    });
  const where = (s: ProxySetting) => (s.field === '' ? 'args' : s.field);
  const shown = (s: ProxySetting) =>
    s.given !== undefined ? JSON.stringify(s.given) : s.field.startsWith('env') ? s.source : shownArgs;
  const unknown = (s: ProxySetting, what: string) =>
    out.push({
      severity: 'warning',
      field: where(s),
      shown: shown(s),
      why:
        `${what} comes from ${s.source}, so whether the kubelet's probes on port ${port} reach the health server ` +
        'cannot be checked.',
      fix: `check that it ends up ${
        what === '--health-check' ? 'true' : what === '--http-address' ? '0.0.0.0' : String(port)
      }, or give ${flagsFix} as args.`,
    });
  const hc = cfg.healthCheck;
  if (hc.value === undefined) unknown(hc, '--health-check');
  else if (FALSE.includes(hc.value)) {
    out.push({
      severity: 'error',
      field: where(hc),
      shown: shown(hc),
      why:
        'the Cloud SQL Auth Proxy serves /startup, /liveness and /readiness only with --health-check (cloud-sql-proxy ' +
        `v2.14.1 cmd/root.go, default false), and here it is off (${hc.source}): nothing listens on port ${port}, ` +
        'every probe is refused and the pod never becomes Ready.',
      fix: `add ${flagsFix} to the args (or set CSQL_PROXY_HEALTH_CHECK=true).`,
    });
    return out;
  }
  const addr = cfg.httpAddress;
  if (addr.value === undefined) unknown(addr, '--http-address');
  else if (LOOPBACK.test(addr.value)) {
    out.push({
      severity: 'error',
      field: where(addr),
      shown: shown(addr),
      why:
        `the proxy's health server listens on --http-address "${addr.value}" ` +
        `(${addr.source}${addr.field === '' ? ', cloud-sql-proxy v2.14.1 cmd/root.go' : ''}), while the kubelet ` +
        `probes the pod's IP: every probe is refused and the pod never becomes Ready.`,
      fix:
        'add "--http-address=0.0.0.0" to the args (or CSQL_PROXY_HTTP_ADDRESS=0.0.0.0). The health server then ' +
        "listens on the pod's IP, which every pod in the cluster can reach unless a NetworkPolicy restricts it; " +
        'it answers only /startup, /liveness and /readiness (and /metrics with --prometheus), never the ' +
        'database, and the Service does not expose it.',
    });
  }
  const hp = cfg.httpPort;
  if (hp.value === undefined) unknown(hp, '--http-port');
  else if (hp.value !== String(port)) {
    out.push({
      severity: 'error',
      field: where(hp),
      shown: shown(hp),
      why:
        `the proxy's health server listens on --http-port ${hp.value} ` +
        `(${hp.source}${hp.field === '' ? ', cloud-sql-proxy v2.14.1 cmd/root.go' : ''}), but the probes ask ` +
        `port ${port}: nothing listens there.`,
      fix: `add "--http-port=${port}" to the args (or ` + `CSQL_PROXY_HTTP_PORT=${port}), or probe port ${hp.value}.`,
    });
  }
  return out;
}

/**
 * The database listener bound beyond the pod: `--address` (or CSQL_PROXY_ADDRESS, or an
 * instance's `?address=`) that is not a loopback address puts the listener on the pod's IP, which
 * every pod in the cluster can reach unless a NetworkPolicy restricts it; a connection through it
 * reaches the database as this pod's identity (with --auto-iam-authn, without a password). The app
 * needs none of it: containers of a pod share one network namespace, so 127.0.0.1 reaches the proxy.
 */
export function proxyListenerProblems(c: ProxyContainer): ProxyProblem[] {
  const cfg = readProxyConfig(c);
  const out: ProxyProblem[] = [];
  const why = (what: string) =>
    `${what}: the database listener is on the pod's IP, and every pod in the cluster can ` +
    `connect to the database through it, as this pod's identity (with --auto-iam-authn, without a password), unless ` +
    'a NetworkPolicy restricts ingress to the pod. The app does not need it: containers of a pod share one network ' +
    'namespace, so it reaches the proxy on 127.0.0.1.';
  const fix =
    'remove --address (the proxy listens on 127.0.0.1 by default, cloud-sql-proxy v2.14.1 cmd/root.go), ' +
    'or, if other pods must connect, restrict the port with a NetworkPolicy and run the proxy as its own service.';
  const a = cfg.address;
  if (a.value !== undefined && !LOOPBACK.test(a.value) && a.field !== '')
    out.push({
      severity: 'warning',
      field: a.field,
      shown: a.given !== undefined ? JSON.stringify(a.given) : JSON.stringify(cfg.argv),
      why: why(`--address is "${a.value}" (${a.source})`),
      fix,
    });
  for (const [name, address] of cfg.instanceAddresses) {
    if (!LOOPBACK.test(address))
      out.push({
        severity: 'warning',
        field: 'args',
        shown: JSON.stringify(cfg.argv),
        why: why(`instance ${name} has ?address=${address}`),
        fix: `remove ?address=${address} from ${name}: the proxy listens on 127.0.0.1 by default.`,
      });
  }
  return out;
}

/**
 * The Cloud SQL Auth Proxy v1: gcr.io/cloudsql-docker/gce-proxy and its regional mirrors (us.,
 * eu., asia.gcr.io; README.md "Container Images" at v1.38.3, the last v1 tag, which names no other
 * repository), and a cloud-sql-proxy image tagged 1.x should a mirror carry one (upstream publishes
 * v2 only there: migration-guide.md v2.14.1). Facts from GoogleCloudPlatform/cloud-sql-proxy at
 * v1.38.3:
 * - `-use_http_health_check` (default false) starts the health server; `-health_check_port`
 *   (default "8090") is its port (cmd/cloud_sql_proxy/cloud_sql_proxy.go). It listens on
 *   ":" + port, every address of the pod (internal/healthcheck/healthcheck.go NewServer), so the
 *   kubelet reaches it. The flags are Go `flag` flags (flag.Parse), read from the command line
 *   only: no environment variable sets them.
 * - /startup is 200 once the proxy logged "Ready for new connections" (hc.NotifyStarted);
 *   /liveness is 200 unless an instance's last certificate refresh failed with no unexpired
 *   certificate left (isLive -> proxy/proxy/client.go InvalidInstances, isValid, startRefresh),
 *   it dials nothing; /readiness dials every instance given on the command line, or every
 *   instance in use in FUSE mode, and is 503 if one fails (isReady -> proxy.Client.DialContext).
 *   Since v1.25.0, the first tag with -use_http_health_check.
 * - The images declare no ENTRYPOINT and no CMD (Dockerfile, Dockerfile.alpine): the container's
 *   command must run /cloud_sql_proxy.
 */
export function isCloudSqlProxyV1Image(image: string): boolean {
  if (/(^|\/)gce-proxy[:@]/.test(image)) return true;
  const v = proxyVersion(image);
  return /(^|\/)cloud-sql-proxy[:@]/.test(image) && v !== undefined && v[0] < 2;
}

/**
 * Go's flag package (flag.Parse, as v1 calls it): `-name` or `--name`, `-name=value`, `-name
 * value` for a non-bool; a bool takes only `-name` or `-name=<strconv.ParseBool>`; parsing stops
 * at the first argument that is not a flag, or after "--".
 */
function goFlags(argv: readonly string[], bools: ReadonlySet<string>): Map<string, { value: string; arg: string }> {
  const flags = new Map<string, { value: string; arg: string }>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--' || !a.startsWith('-') || a === '-') break;
    const body = a.slice(a.startsWith('--') ? 2 : 1);
    const eq = body.indexOf('=');
    const name = eq >= 0 ? body.slice(0, eq) : body;
    if (eq >= 0) flags.set(name, { value: body.slice(eq + 1), arg: a });
    else if (bools.has(name)) flags.set(name, { value: 'true', arg: a });
    else if (i + 1 < argv.length) {
      flags.set(name, { value: argv[i + 1], arg: `${a} ${argv[i + 1]}` });
      i++;
    }
  }
  return flags;
}

/** The v1 proxy's bool flags (cmd/cloud_sql_proxy/cloud_sql_proxy.go v1.38.3: every flag.Bool). */
const V1_BOOL_FLAGS = new Set([
  'version',
  'verbose',
  'quiet',
  'log_debug_stdout',
  'structured_logs',
  'check_region',
  'fuse',
  'enable_iam_login',
  'skip_failed_instance_config',
  'use_http_health_check',
]);

/**
 * Why the kubelet's probes on `port` cannot reach the v1 proxy's health server (it is off, or on
 * another port), each with the fix; a command rollwise cannot read is a warning.
 */
export function proxyV1HealthProblems(c: ProxyContainer, image: string, port: number): ProxyProblem[] {
  const env = envOf(c);
  const strings = (x: readonly unknown[] | undefined) => (x ?? []).map((v) => expand(String(v), env.literal));
  const command = strings(c.command);
  const at = command.findIndex((x) => basename(x) === 'cloud_sql_proxy');
  const flagsFix = `"-use_http_health_check" and "-health_check_port=${port}"`;
  const v = proxyVersion(image);
  if (v !== undefined && v[0] === 1 && v[1] < 25) {
    return [
      {
        severity: 'error',
        field: 'image',
        shown: image,
        why:
          'the Cloud SQL Auth Proxy v1 has a health server only from v1.25.0 (-use_http_health_check, ' +
          `cmd/cloud_sql_proxy/cloud_sql_proxy.go): nothing answers the probes on port ${port}.`,
        fix:
          'run gcr.io/cloud-sql-connectors/cloud-sql-proxy 2.11.1 or later (or gce-proxy 1.25.0 or later), or probe ' +
          'with tcpSocket.',
      },
    ];
  }
  if (at < 0) {
    const why =
      command.length === 0
        ? 'the v1 image declares no ENTRYPOINT and no CMD (Dockerfile, cloud-sql-proxy v1.38.3), and the container ' +
          'gives no command'
        : `command ${JSON.stringify(command)} does not run /cloud_sql_proxy itself, so rollwise cannot tell which ` +
          'arguments reach it';
    return [
      {
        severity: 'warning',
        field: 'command',
        shown: JSON.stringify(c.command ?? []),
        why: `${why}: whether the health server the probes ask on port ${port} is started on that port cannot be checked.`,
        fix: `give command: ["/cloud_sql_proxy", ${flagsFix}, "-instances=..."].`,
      },
    ];
  }
  const argv = [...command.slice(at + 1), ...strings(c.args)];
  const field = command.length > at + 1 ? 'command' : 'args';
  const flags = goFlags(argv, V1_BOOL_FLAGS);
  const shown = JSON.stringify(argv);
  const hc = flags.get('use_http_health_check');
  if (hc === undefined || !TRUE.includes(hc.value)) {
    return [
      {
        severity: 'error',
        field,
        shown,
        why:
          'the Cloud SQL Auth Proxy v1 serves /startup, /liveness and ' +
          '/readiness only with -use_http_health_check (default false, cmd/cloud_sql_proxy/cloud_sql_proxy.go v1.38.3), ' +
          `and here it is ${hc ? `off ("${hc.arg}")` : 'not given'}: nothing listens on port ${port}, every probe is ` +
          'refused.',
        fix: `add ${flagsFix} before the first argument that is not a flag.`,
      },
    ];
  }
  const hp = flags.get('health_check_port');
  const listens = hp?.value ?? '8090';
  if (listens !== String(port)) {
    return [
      {
        severity: 'error',
        field,
        shown,
        why:
          `the v1 proxy's health server listens on port ${listens} ` +
          `(${
            hp ? `"${hp.arg}"` : '-health_check_port defaults to 8090, cmd/cloud_sql_proxy/cloud_sql_proxy.go v1.38.3'
          }), ` +
          `but the probes ask port ${port}: nothing listens there.`,
        fix: `add "-health_check_port=${port}", or probe port ${listens}.`,
      },
    ];
  }
  return [];
}
