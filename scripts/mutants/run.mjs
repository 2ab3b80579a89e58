// The mutation harness: runs the store conformance suite against every mutant of each
// backend and the engine suite against every engine mutant (packages/*/test/**/*.mutants.ts,
// one file at a time), then prints a table of
// mutant → killed (by which case) / survived. Exit 1 when a mutant survived, a control
// (behaviour the contract allows) was killed, or the run itself broke.
//
//   node scripts/mutants/run.mjs [vitest file filters...]
//   FATE_MUTANTS=a,b     only these mutants
//   FATE_MUTANTS_ALL=1   every case against every mutant (lists every case that kills it)
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const report = join(tmpdir(), `fate-mutants-${process.pid}.json`);
const started = performance.now();
const run = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--config',
    'vitest.mutants.config.ts',
    '--reporter',
    './scripts/mutants/reporter.mjs',
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, FATE_MUTANTS_REPORT: report } },
);
const seconds = (performance.now() - started) / 1000;
if (!existsSync(report)) {
  console.error(`\nthe mutant run produced no report (vitest exit ${run.status})`);
  process.exit(1);
}
const { results, unhandled } = JSON.parse(readFileSync(report, 'utf8'));
rmSync(report, { force: true });

const rows = results.map((r) => {
  const killed = r.failed.length > 0;
  const ok = !r.applies || (r.kind === 'control' ? !killed : killed);
  const by = r.failed.map((f) => f.case);
  return {
    ok,
    target: r.target,
    mutant: r.kind === 'control' ? `${r.name} (control)` : r.name,
    promise: String(r.promise),
    result: !r.applies ? 'n/a' : killed ? 'killed' : 'survived',
    by: killed ? (by.length > 1 ? `${by[0]} (+${by.length - 1} more)` : by[0]) : '',
    all: by,
  };
});

const widths = ['target', 'mutant', 'promise', 'result'].map((k) =>
  Math.max(k.length, ...rows.map((r) => r[k].length)),
);
const line = (cells) =>
  cells.map((c, i) => (i < widths.length ? c.padEnd(widths[i]) : c)).join('  ');
console.log(`\n${line(['target', 'mutant', 'promise', 'result', 'killed by'])}`);
for (const r of rows) console.log(line([r.target, r.mutant, r.promise, r.result, r.by]));
if (process.env.FATE_MUTANTS_ALL === '1') {
  console.log('\nevery case that kills each mutant:');
  for (const r of rows) for (const c of r.all) console.log(`  ${r.mutant}: ${c}`);
}

const survivors = rows.filter((r) => !r.ok && r.result === 'survived');
const overreach = rows.filter((r) => !r.ok && r.result === 'killed');
const controls = rows.filter((r) => r.mutant.endsWith('(control)'));
const skipped = rows.filter((r) => r.result === 'n/a');
const mutants = rows.filter((r) => !r.mutant.endsWith('(control)') && r.result !== 'n/a');
console.log(
  `\n${mutants.length - survivors.length}/${mutants.length} mutants killed, ` +
    (skipped.length ? `${skipped.length} not applicable to the backend's capabilities, ` : '') +
    `${controls.length - overreach.length}/${controls.length} controls passed, ` +
    `${seconds.toFixed(0)} s`,
);
for (const r of survivors) console.log(`SURVIVED: ${r.mutant} (promise ${r.promise})`);
for (const r of overreach) console.log(`CONTROL KILLED: ${r.mutant} by ${r.all.join('; ')}`);
for (const e of unhandled) console.log(`UNHANDLED ERROR: ${e}`);
if (rows.length === 0) console.log('no mutant ran');
process.exit(survivors.length || overreach.length || unhandled.length || !rows.length ? 1 : 0);
