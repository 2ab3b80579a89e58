// Model-checks the reservation protocol (docs/protocol/fate.pml) with spin: every run of
// the real model must finish its search without an error, and every mutant must be caught
// (a counterexample for the property it breaks). Builds and runs in a temporary directory,
// two runs at a time, and prints a table. Exit 1 on a violation of the real model, a search
// that did not complete (depth or memory bound), a mutant that passes, or a missing tool.
//
//   node scripts/verify-protocol.mjs [name filter...]     (npm run verify:protocol)
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const modelDir = fileURLToPath(new URL('../docs/protocol/', import.meta.url));
const MEMLIM_MB = 3072;
const DEPTH = 200_000;

// Fault budgets per configuration: each names every budget, so a run reads on its own.
const NONE = {
  SLOWS: 0,
  FREEZES: 0,
  GAINS: 0,
  LOST: 0,
  DEFERS: 0,
  OUTAGES: 0,
  SHUTDOWNS: 0,
  CRASHES: 0,
};
// Switches: LIVE (the liveness build), RESTART (A@2 exists), NO_B (B never starts), SHARES
// (an engine's share may hold the transaction or not), ADMIN (an admin client, with
// ADMIN_OPS: 1 cancel, 2 fail, 4 delete), AGEOFF (A's age-off sweep; RESEEDS keyed re-seeds).
const CONFIGS = {
  slow: { ...NONE, SLOWS: 2 },
  'slow-t8': { ...NONE, SLOWS: 2, T: 8 }, // Fate's default heartbeat, a quarter of the timeout
  freeze: { ...NONE, FREEZES: 2, GAINS: 1 },
  store: { ...NONE, LOST: 1, OUTAGES: 1, DEFERS: 1 },
  shutdown: { ...NONE, SHUTDOWNS: 1, LOST: 1, OUTAGES: 1 },
  restart: { ...NONE, RESTART: true, NO_B: true, FREEZES: 1, LOST: 1 },
  'live-crash': { ...NONE, LIVE: true, CRASHES: 1, FREEZES: 1, LOST: 1 },
  'live-release': { ...NONE, LIVE: true, CRASHES: 1, DEFERS: 1, OUTAGES: 1, SHUTDOWNS: 1 },
  'live-restart': { ...NONE, LIVE: true, RESTART: true, CRASHES: 1 },
  sweep: { ...NONE, SHARES: true, FREEZES: 1, SLOWS: 1, SLOWAT: 448 }, // slow: around the read
  admin: { ...NONE, ADMIN: true, ADMIN_OPS: 7, DEFERS: 1 }, // cancel, fail or delete
  // fail or delete, against one engine that may freeze: the admin clears it itself
  'admin-clear': { ...NONE, ADMIN: true, ADMIN_OPS: 6, NO_B: true, FREEZES: 1, SLOWS: 1 },
  ageoff: { ...NONE, ADMIN: true, AGEOFF: true, ADMIN_OPS: 4, RESEEDS: 1 },
};

// p1, p4 and p5-p7 are assertions (safety runs); p2 and p3 are LTL claims (acceptance cycles).
// The longest runs come first, so two at a time finish together.
const RUNS = [
  { variant: 'model', config: 'slow', property: 'p1 p4' },
  { variant: 'model', config: 'slow-t8', property: 'p1 p4' },
  { variant: 'model', config: 'live-crash', property: 'p2' },
  { variant: 'model', config: 'sweep', property: 'p1 p4' },
  { variant: 'model', config: 'live-release', property: 'p3' },
  { variant: 'model', config: 'shutdown', property: 'p1 p4' },
  { variant: 'model', config: 'freeze', property: 'p1 p4' },
  { variant: 'model', config: 'store', property: 'p1 p4' },
  { variant: 'model', config: 'restart', property: 'p1 p4' },
  { variant: 'model', config: 'live-restart', property: 'p2' },
  { variant: 'model', config: 'admin', property: 'p1 p4 p6 p7' },
  { variant: 'model', config: 'admin-clear', property: 'p1 p4 p6 p7' },
  { variant: 'model', config: 'ageoff', property: 'p1 p4 p5 p6 p7' },
  { variant: 'MUTANT_SWEEP', config: 'sweep', property: 'p1' },
  { variant: 'MUTANT_A', config: 'slow', property: 'p1' },
  { variant: 'MUTANT_AGEOFF', config: 'ageoff', property: 'p5' },
  { variant: 'MUTANT_SUBMIT_BACK', config: 'admin', property: 'p6' },
  { variant: 'MUTANT_ADMIN_HOT', config: 'ageoff', property: 'p7' },
  { variant: 'MUTANT_ADMIN_EAGER', config: 'admin-clear', property: 'p1' },
  { variant: 'MUTANT_B', config: 'restart', property: 'p1' },
  { variant: 'MUTANT_C', config: 'live-crash', property: 'p2' },
  { variant: 'MUTANT_AT_REPLY', config: 'slow', property: 'p1' },
  { variant: 'MUTANT_LATE_SIGNAL', config: 'slow', property: 'p1' },
  { variant: 'MUTANT_TIMER_ONLY', config: 'freeze', property: 'p1' },
  { variant: 'MUTANT_B+MUTANT_FENCE+NO_P1', config: 'restart', property: 'p4' },
];

function haveTool(cmd) {
  return spawnSync(cmd, ['-V'], { stdio: 'ignore' }).error === undefined;
}

function exec(cmd, args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('close', (code) => resolve({ code, out }));
    child.on('error', (err) => resolve({ code: -1, out: String(err) }));
  });
}

/** Which property an error message is about. */
function violated(out) {
  if (/acceptance cycle/.test(out)) return 'cycle';
  const m = out.match(/assertion violated (.*)/);
  if (!m) return undefined;
  const text = m[1].replace(/\s*\(at depth \d+\)\s*$/, '').trim();
  if (text.includes('running[')) return 'p1';
  if (text.includes('cut')) return 'p4';
  if (text.includes('began')) return 'p6';
  if (text.includes('hot')) return 'p7';
  if (text === 'stDone') return 'p5';
  return `assert ${text}`; // a model bound (a free uuid) or a model bug
}

async function verify(run, dir) {
  const started = performance.now();
  const flags = Object.entries(CONFIGS[run.config]).map(([k, v]) =>
    v === true ? `-D${k}` : `-D${k}=${v}`,
  );
  if (run.variant !== 'model') flags.push(...run.variant.split('+').map((m) => `-D${m}`));
  const live = CONFIGS[run.config].LIVE === true;
  const row = { ...run, states: '', result: '', seconds: 0, trail: '' };
  const fail = (result) => ({
    ...row,
    result,
    ok: false,
    seconds: (performance.now() - started) / 1000,
  });

  const spin = await exec('spin', [...flags, '-a', 'fate.pml'], dir);
  if (spin.code !== 0 || /error/i.test(spin.out))
    return fail(`spin: ${spin.out.trim().split('\n')[0]}`);
  // the real model's searches are long: optimise; a mutant's stops at its counterexample
  const opt = run.variant === 'model' ? '-O2' : '-O0';
  const cflags = [opt, '-w', `-DMEMLIM=${MEMLIM_MB}`, ...(live ? [] : ['-DSAFETY', '-DNOCLAIM'])];
  const gcc = await exec('gcc', [...cflags, '-o', 'pan', 'pan.c'], dir);
  if (gcc.code !== 0) return fail(`gcc: ${gcc.out.trim().split('\n')[0]}`);
  const panArgs = live ? ['-a', '-N', run.property, `-m${DEPTH}`] : ['-E', `-m${DEPTH}`];
  const pan = await exec('./pan', panArgs, dir);
  const out = pan.out;
  row.states = (out.match(/(\d+) states, stored/) ?? [])[1] ?? '';
  row.seconds = (performance.now() - started) / 1000;
  const errors = Number((out.match(/errors: (\d+)/) ?? [])[1] ?? Number.NaN);
  if (Number.isNaN(errors)) return fail(`pan: ${out.trim().split('\n').slice(-1)[0]}`);
  // "holds" needs the whole search; a counterexample stands however far the search got
  const incomplete = /max search depth too small|Search not completed/.test(out);
  if (errors === 0 && incomplete) return fail('depth bound hit: incomplete');
  if (errors === 0 && /reached -DMEMLIM bound|out of memory/i.test(out)) {
    return fail('memory bound hit: incomplete');
  }
  const what = violated(out);
  if (run.variant === 'model') {
    if (errors === 0) return { ...row, result: 'holds', ok: true };
    return { ...row, result: `VIOLATED (${what ?? 'error'})`, ok: false };
  }
  // a mutant: caught only by a counterexample for the property it breaks
  if (errors === 0) return { ...row, result: 'SURVIVED', ok: false };
  const expected = live ? 'cycle' : run.property;
  const trailText = readFileSync(join(dir, 'fate.pml.trail'), 'utf8');
  const steps = trailText
    .split('\n')
    .filter((l) => /^-?\d+:/.test(l) && !l.startsWith('-4:')).length;
  const replay = await exec('spin', [...flags, '-t', 'fate.pml'], dir);
  const ticks = (replay.out.match(/-- tick/g) ?? []).length;
  row.trail = `${steps} steps, ${ticks} ticks`;
  if (what !== expected) return { ...row, result: `wrong error: ${what}`, ok: false };
  return { ...row, result: `caught (${run.property})`, ok: true };
}

function table(rows) {
  const cols = ['variant', 'config', 'property', 'states', 'result', 'seconds', 'trail'];
  const cell = (r, c) => (c === 'seconds' ? r.seconds.toFixed(1) : String(r[c] ?? ''));
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r, c).length)));
  const line = (cells) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  console.log(line(cols));
  for (const r of rows) console.log(line(cols.map((c) => cell(r, c))));
}

async function main() {
  const missing = ['spin', 'gcc'].filter((t) => !haveTool(t));
  if (missing.length > 0) {
    console.error(
      `verify:protocol needs ${missing.join(' and ')} (Debian: apt-get install spin gcc)`,
    );
    process.exit(1);
  }
  const filters = process.argv.slice(2);
  const runs = RUNS.filter(
    (r) => filters.length === 0 || filters.some((f) => `${r.variant} ${r.config}`.includes(f)),
  );
  const root = mkdtempSync(join(tmpdir(), 'fate-protocol-'));
  const started = performance.now();
  const rows = new Array(runs.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < runs.length; i = next++) {
      const dir = join(root, String(i));
      mkdirSync(dir);
      cpSync(modelDir, dir, { recursive: true, filter: (src) => !src.endsWith('.md') });
      rows[i] = await verify(runs[i], dir);
      rmSync(dir, { recursive: true, force: true });
      process.stderr.write(`${rows[i].ok ? '.' : 'x'}`);
    }
  };
  try {
    const jobs = Math.max(1, Math.min(2, availableParallelism()));
    await Promise.all(Array.from({ length: jobs }, worker));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  process.stderr.write('\n');
  table(rows);
  const bad = rows.filter((r) => !r.ok);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`\n${rows.length - bad.length}/${rows.length} as expected in ${seconds} s`);
  if (bad.length > 0) process.exit(1);
}

await main();
