// The scheduled Stryker run (docs/mutation.md): `npm run test:stryker [slice]` mutates one
// slice of the source (scripts/stryker/slices.mjs; with none, the slice of the day, so a
// daily cron job covers every slice in turn), then prints the score per file and writes it
// beside Stryker's reports: reports/mutation/<slice>.json, .html and .md. Exit 1 only when
// Stryker itself failed; the score is a report, not a gate.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SLICES, sliceOfDay } from './slices.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { positionals, values } = parseArgs({
  allowPositionals: true,
  // --report: only summarize the slice's last JSON report again (no Stryker run)
  options: { list: { type: 'boolean' }, mutate: { type: 'string' }, report: { type: 'boolean' } },
});
if (values.list) {
  for (const [name, s] of Object.entries(SLICES)) {
    console.log(
      `${name.padEnd(10)} ${s.mutate.length} paths${s.services ? `; needs ${s.services}` : ''}`,
    );
  }
  process.exit(0);
}
const name = positionals[0] ?? sliceOfDay();
if (!SLICES[name]) {
  console.error(`no slice ${name}; one of ${Object.keys(SLICES).join(', ')} (--list)`);
  process.exit(2);
}

const started = new Date();
console.log(`stryker: slice ${name}, ${started.toISOString()}`);
const run = values.report
  ? { status: 0 }
  : spawnSync(
      process.execPath,
      [
        join(root, 'node_modules/@stryker-mutator/core/bin/stryker.js'),
        'run',
        'stryker.config.mjs',
        // a narrower set of the slice's files or lines, e.g. to rerun survivors
        ...(values.mutate ? ['--mutate', values.mutate] : []),
      ],
      { cwd: root, stdio: 'inherit', env: { ...process.env, FATE_STRYKER_SLICE: name } },
    );
if (run.status !== 0) {
  console.error(`stryker exited ${run.status ?? run.signal}`);
  process.exit(1);
}

const report = JSON.parse(readFileSync(join(root, `reports/mutation/${name}.json`), 'utf8'));
const DETECTED = new Set(['Killed', 'Timeout']);
const rows = Object.entries(report.files).map(([file, f]) => {
  const count = (s) => f.mutants.filter((m) => m.status === s).length;
  const all = f.mutants.length;
  const detected = f.mutants.filter((m) => DETECTED.has(m.status)).length;
  return {
    file: file.replace(/^packages\//, ''),
    all,
    killed: count('Killed'),
    timeout: count('Timeout'),
    survived: count('Survived'),
    uncovered: count('NoCoverage'),
    errors: count('CompileError') + count('RuntimeError'),
    // not run at all (static mutants Stryker leaves out): in no score
    ignored: count('Ignored'),
    score: ((valid) => (valid === 0 ? 100 : (100 * detected) / valid))(
      all - count('CompileError') - count('RuntimeError') - count('Ignored'),
    ),
    survivors: f.mutants
      .filter((m) => m.status === 'Survived' || m.status === 'NoCoverage')
      .map(
        (m) =>
          `${m.location.start.line}: ${m.mutatorName} → ${JSON.stringify(m.replacement ?? '')} (${m.status})`,
      ),
  };
});
const total = rows.reduce(
  (t, r) => ({
    all: t.all + r.all,
    killed: t.killed + r.killed,
    timeout: t.timeout + r.timeout,
    survived: t.survived + r.survived,
    uncovered: t.uncovered + r.uncovered,
    errors: t.errors + r.errors,
    ignored: t.ignored + r.ignored,
  }),
  { all: 0, killed: 0, timeout: 0, survived: 0, uncovered: 0, errors: 0, ignored: 0 },
);
const valid = total.all - total.errors - total.ignored;
const score = valid === 0 ? 100 : (100 * (total.killed + total.timeout)) / valid;
const minutes = (Date.now() - started.getTime()) / 60_000;
const line = (cells) => `| ${cells.join(' | ')} |`;
const md = [
  `# Stryker, slice ${name} (${started.toISOString()}, ${minutes.toFixed(1)} min)`,
  '',
  line([
    'file',
    'mutants',
    'killed',
    'timeout',
    'survived',
    'no coverage',
    'errors',
    'ignored',
    'score',
  ]),
  line(['---', '--:', '--:', '--:', '--:', '--:', '--:', '--:', '--:']),
  ...rows.map((r) =>
    line([
      r.file,
      r.all,
      r.killed,
      r.timeout,
      r.survived,
      r.uncovered,
      r.errors,
      r.ignored,
      `${r.score.toFixed(1)} %`,
    ]),
  ),
  line([
    '**all**',
    total.all,
    total.killed,
    total.timeout,
    total.survived,
    total.uncovered,
    total.errors,
    total.ignored,
    `**${score.toFixed(1)} %**`,
  ]),
  '',
  'Score = (killed + timeout) / (mutants − compile and runtime errors − ignored).',
  '',
  '## Survivors and mutants without coverage',
  '',
  ...rows.flatMap((r) =>
    r.survivors.length ? [`### ${r.file}`, '', ...r.survivors.map((s) => `- ${s}`), ''] : [],
  ),
].join('\n');
writeFileSync(join(root, `reports/mutation/${name}.md`), `${md}\n`);
console.log(`\n${md.split('\n## Survivors')[0]}`);
console.log(`reports/mutation/${name}.md lists the survivors`);
