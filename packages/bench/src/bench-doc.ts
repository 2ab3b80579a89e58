import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { chartFileFor, scanChart } from './bench-chart.js';
import type { BenchConfig, Mode } from './bench-config.js';
import { modeMethod, modeTitle } from './bench-mode-method.js';
import { modeSummary, modeTables } from './bench-mode-report.js';
import { errorsTable, markdownReport } from './bench-report.js';
import type { BenchResults } from './bench-results.js';
import { markdownTable } from './bench-table.js';

// docs/benchmarks.md holds the default run's report and, after it, one section per mode
// (between markers), so a run of one mode replaces only its own section and a default run
// keeps every mode's.

const begin = (mode: Mode) => `<!-- bench:${mode} -->`;
const end = (mode: Mode) => `<!-- /bench:${mode} -->`;
const ANY_SECTION = /<!-- bench:([a-z]+) -->[\s\S]*?<!-- \/bench:\1 -->/g;

/** `doc` with the section of `mode` replaced by `section`, or added at the end. */
export function withSection(doc: string, mode: Mode, section: string): string {
  const block = `${begin(mode)}\n\n${section.trim()}\n\n${end(mode)}`;
  const existing = new RegExp(`${begin(mode)}[\\s\\S]*?${end(mode)}`);
  if (existing.test(doc)) return doc.replace(existing, () => block);
  return `${[doc.trimEnd(), block].filter(Boolean).join('\n\n')}\n`;
}

/** Every mode section of `doc`, in order, markers included. */
export function modeSections(doc: string): string[] {
  return [...doc.matchAll(ANY_SECTION)].map((m) => m[0]);
}

/** One mode's section: what was run, on what load, how it is measured, and the tables. */
export function modeSection(results: BenchResults, config: BenchConfig): string {
  const m = results.machine;
  const out = [
    `## ${modeTitle(config.mode)}`,
    '',
    `Measured on ${m.date.slice(0, 10)} as \`${results.command}\`; ${m.cpu}, ${m.cores} cores,`,
    `Node ${m.node}; load average (1 minute) when it started: ${m.loadAverage}.`,
    '',
    ...modeMethod(config),
    '',
  ];
  const errors = results.errors.length > 0 ? [errorsTable(results)] : [];
  for (const t of [...modeTables(results), ...errors]) {
    out.push(`### ${t.title}`, '', markdownTable(t), '');
  }
  const summary = modeSummary(results);
  if (summary.length > 0) out.push(...summary, '');
  return out.join('\n');
}

/** Writes the markdown report where `config.out` says (and the scan chart beside it). */
export function writeReport(results: BenchResults, config: BenchConfig): string | undefined {
  const file = config.out;
  if (!file) return undefined;
  mkdirSync(dirname(file), { recursive: true });
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
  if (config.mode !== 'default') {
    writeFileSync(file, withSection(old, config.mode, modeSection(results, config)));
    return file;
  }
  const chart = chartFileFor(file);
  const title = `Scan cost against partitions, ${results.scan[0]?.txs.toLocaleString('en-US') ?? 0} transactions (10% runnable)`;
  if (results.scan.length > 0) writeFileSync(chart, scanChart(results.scan, title));
  const kept = modeSections(old);
  const report = markdownReport(results, config, basename(chart)).trimEnd();
  writeFileSync(file, `${[report, ...kept].join('\n\n')}\n`);
  return results.scan.length > 0 ? `${file} and ${chart}` : file;
}
