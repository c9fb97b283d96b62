import { arr, ContainerRef, containers, rec } from './k8s';
import { LintObject } from './source';

/**
 * Facts read from the manifests themselves, where a known server's defaults make them certain: the
 * app server's idle keep-alive from the container's command line. Each fact says where it was read.
 *
 * Only servers whose keep-alive cannot be changed behind the command line's back are read:
 * - uvicorn: `--timeout-keep-alive`, default 5 s (uvicorn/main.py and uvicorn/config.py, 0.35.0);
 *   the CLI also reads UVICORN_* environment variables (click auto_envvar_prefix "UVICORN",
 *   uvicorn/main.py 0.35.0), so UVICORN_TIMEOUT_KEEP_ALIVE in `env` counts, and a container with
 *   `envFrom` (variables not in the manifest) is not read.
 * - hypercorn: `--keep-alive`, default 5 s (keep_alive_timeout, src/hypercorn/config.py 0.18.0);
 *   with `--config`/`-c` the file decides, so it is not read.
 * - gunicorn reads ./gunicorn.conf.py by default and GUNICORN_CMD_ARGS (gunicorn/config.py 26.1.0),
 *   so only an explicit `--keep-alive N` with an explicit non-sync worker class is read (the command
 *   line wins over the config file); the sync worker ignores keep-alive (class Keepalive, same file).
 */

/** A keep-alive read from a container, with where it was read. */
export interface ManifestKeepAlive {
  readonly seconds: number;
  /**
   * e.g. `container "app" command of Deployment/shop/api: uvicorn without --timeout-keep-alive (default 5 s, uvicorn
   * 0.35.0)`.
   */
  readonly source: string;
}

/** Splits a shell command line into words (single and double quotes, backslash escapes). */
export function shellWords(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: '"' | "'" | undefined;
  let has = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
      continue;
    }
    if (ch === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
      continue;
    }
    if (/\s/.test(ch)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
      continue;
    }
    // Shell control operators end a word and are words of their own.
    if (/[;&|]/.test(ch)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
      const two = line.slice(i, i + 2);
      if (two === '&&' || two === '||') {
        out.push(two);
        i++;
      } else out.push(ch);
      continue;
    }
    cur += ch;
    has = true;
  }
  if (has || cur) out.push(cur);
  return out;
}

const SHELLS = /(^|\/)(sh|bash|ash|dash|zsh)$/;

/** The words the container runs: command + args, with a `sh -c "<script>"` script split into words. */
export function commandWords(c: Record<string, unknown>): string[] | undefined {
  const command = arr(c.command).map((x) => String(x));
  const args = arr(c.args).map((x) => String(x));
  const all = [...command, ...args];
  if (all.length === 0) return undefined;
  if (SHELLS.test(all[0])) {
    const i = all.findIndex((w, k) => k > 0 && /^-[a-z]*c[a-z]*$/.test(w));
    if (i > 0 && all[i + 1] !== undefined) return shellWords(all.slice(i + 1).join(' '));
  }
  return all;
}

/** The value of an option (`--x N`, `--x=N`), or undefined. */
function option(words: readonly string[], names: readonly string[]): string | undefined {
  for (let i = 0; i < words.length; i++) {
    for (const n of names) {
      if (words[i] === n && i + 1 < words.length) return words[i + 1];
      if (words[i].startsWith(`${n}=`)) return words[i].slice(n.length + 1);
    }
  }
  return undefined;
}

function envValue(c: Record<string, unknown>, name: string): string | undefined {
  for (const e of arr(c.env)) {
    const r = rec(e);
    if (r && r.name === name && typeof r.value === 'string') return r.value;
  }
  return undefined;
}

/** The words from the server program on, for the first word naming it (`uvicorn`, `python -m uvicorn`). */
function serverWords(words: readonly string[], server: string): string[] | undefined {
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === server || w.endsWith(`/${server}`)) return words.slice(i + 1);
    if (w === '-m' && words[i + 1] === server && i > 0 && /python/.test(words[i - 1])) return words.slice(i + 2);
  }
  return undefined;
}

/** Up to the end of that command (a `;`, `&&`, `||` or `|` ends it). */
function untilControl(words: readonly string[]): string[] {
  const end = words.findIndex((w) => w === ';' || w === '&&' || w === '||' || w === '|' || w === '&');
  return end < 0 ? [...words] : words.slice(0, end);
}

/** A whole number of seconds, or undefined. */
function seconds(v: string | undefined): number | undefined {
  if (v === undefined || !/^\d+$/.test(v.trim())) return undefined;
  return Number(v.trim());
}

/** The keep-alive of one container, read from its command line, or undefined when it cannot be known. */
export function containerKeepAlive(w: LintObject, ref: ContainerRef): ManifestKeepAlive | undefined {
  const c = ref.c;
  const words = commandWords(c);
  if (!words) return undefined;
  const where = `container "${ref.name}" ${c.command !== undefined ? 'command' : 'args'} of ${w.ref}`;
  const uv = serverWords(words, 'uvicorn');
  if (uv) {
    if (arr(c.envFrom).length > 0) return undefined; // UVICORN_* variables we cannot see
    const own = untilControl(uv);
    const flag = option(own, ['--timeout-keep-alive']);
    const env = envValue(c, 'UVICORN_TIMEOUT_KEEP_ALIVE');
    if (flag !== undefined) {
      const s = seconds(flag);
      return s === undefined ? undefined : { seconds: s, source: `${where}: uvicorn --timeout-keep-alive ${s}` };
    }
    if (env !== undefined) {
      const s = seconds(env);
      return s === undefined
        ? undefined
        : { seconds: s, source: `${ref.name} env UVICORN_TIMEOUT_KEEP_ALIVE=${s} of ${w.ref} (uvicorn)` };
    }
    return {
      seconds: 5,
      source:
        `${where}: uvicorn without --timeout-keep-alive keeps idle connections 5 s (its ` +
        'default, uvicorn 0.35.0 uvicorn/main.py)',
    };
  }
  const hc = serverWords(words, 'hypercorn');
  if (hc) {
    const own = untilControl(hc);
    if (option(own, ['--config', '-c']) !== undefined) return undefined;
    const flag = option(own, ['--keep-alive']);
    if (flag !== undefined) {
      const s = seconds(flag);
      return s === undefined ? undefined : { seconds: s, source: `${where}: hypercorn --keep-alive ${s}` };
    }
    return {
      seconds: 5,
      source:
        `${where}: hypercorn without --keep-alive keeps idle connections 5 s ` +
        '(keep_alive_timeout, hypercorn 0.18.0 src/hypercorn/config.py)',
    };
  }
  const gu = serverWords(words, 'gunicorn');
  if (gu) {
    const own = untilControl(gu);
    const ka = seconds(option(own, ['--keep-alive']));
    const worker = option(own, ['-k', '--worker-class']);
    if (ka === undefined || worker === undefined || worker === 'sync' || /SyncWorker$/.test(worker)) return undefined;
    return { seconds: ka, source: `${where}: gunicorn --keep-alive ${ka} with worker class ${worker}` };
  }
  return undefined;
}

/** The keep-alive of a workload's serving containers, when exactly one value can be read. */
export function workloadKeepAlive(w: LintObject): ManifestKeepAlive | undefined {
  const found = containers(w).flatMap((ref) => {
    const k = containerKeepAlive(w, ref);
    return k ? [k] : [];
  });
  // Several servers with different values in one pod: which one the Service reaches is not read here.
  return found.length > 0 && found.every((k) => k.seconds === found[0].seconds) ? found[0] : undefined;
}
