#!/usr/bin/env node
// Where synth's CPU goes, by thread (docs/performance.md, "Sixth round"): builds the synth bench's
// estate (bench/synth.ts buildEstate) outside the timing, then times `synthesize()` as the bench's
// child does, and prints the CPU time each thread of this process used during it, read from
// /proc/self/task/<tid>/stat (utime, stime; Linux, USER_HZ 100: ticks of 10 ms): the main thread, V8's
// platform threads (concurrent compilation, parallel GC) and the process total. The serializer
// worker (src/synth/parallel.ts) has exited when synth returns, so its CPU is in the total only:
// total less the listed threads. `floor` times the bench's floor instead (the plain objects written
// with the yaml package, as bench/synth.ts measures it).
//   npm run -s build && node --expose-gc scripts/synth-threads.js [capacity|no-capacity|floor] [services] [no-rehearsal]
// V8 flags go before the script (`node --expose-gc --no-concurrent-recompilation scripts/synth-threads.js`).
const fs = require('fs');
const os = require('os');
const path = require('path');

const lib = path.join(__dirname, '..', 'lib');
const { buildEstate, floorCharts, procStatCpuMs, writeFloor } = require(path.join(lib, 'bench', 'synth.js'));
const { synthesize } = require(path.join(lib, 'src', 'synth', 'synth.js'));
const { setSynthRehearsalForBench } = require(path.join(lib, 'src', 'rehearse', 'synth-check.js'));

const [mode = 'capacity', servicesArg = '1000', rehearsal] = process.argv.slice(2);
if (!['capacity', 'no-capacity', 'floor'].includes(mode)) throw new Error(`unknown mode ${mode}`);
const services = Number(servicesArg);
if (!Number.isInteger(services) || services < 1) throw new Error(`services: ${servicesArg} is not a positive integer`);
if (rehearsal === 'no-rehearsal') setSynthRehearsalForBench(false);

/** CPU ms of every live thread of this process, by thread id. */
function threads() {
  const out = new Map();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    const t = procStatCpuMs(`/proc/self/task/${tid}/stat`);
    if (t) out.set(tid, t); // else the thread ended between the listing and the read
  }
  return out;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'synth-threads-'));
const outdir = path.join(work, 'out');
try {
  let app = buildEstate(services, outdir, mode === 'floor' ? 'capacity' : mode);
  let run;
  if (mode === 'floor') {
    const charts = floorCharts(app);
    app = undefined;
    run = () => writeFloor(charts, outdir, false);
  } else {
    const built = app;
    run = () => synthesize(() => built, { outdir, progress: () => undefined });
  }
  global.gc?.();
  const before = threads();
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  run();
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  const after = threads();
  let listed = 0;
  const lines = [];
  for (const [tid, t] of after) {
    const b = before.get(tid) ?? { user: 0, sys: 0 };
    const user = t.user - b.user;
    const sys = t.sys - b.sys;
    if (user + sys === 0) continue;
    listed += user + sys;
    lines.push(`${tid === String(process.pid) ? 'main' : `thread ${tid}`}: user ${user} ms, system ${sys} ms`);
  }
  const total = (cpu.user + cpu.system) / 1000;
  // Every thread that ended during the step: the serializer worker, unless it is still listed above.
  lines.push(`ended threads (the serializer worker, unless listed): ${Math.max(0, Math.round(total - listed))} ms`);
  lines.push(
    `${mode} at ${services} services${rehearsal ? ` (${rehearsal})` : ''}: wall ${Math.round(wallMs)} ms, ` +
      `CPU ${Math.round(total)} ms (user ${Math.round(cpu.user / 1000)}, system ${Math.round(cpu.system / 1000)})`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
