import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { BenchConfig, Mode } from '../config.js';
import { chartFileFor, scanChart } from './chart.js';
import { modeSummary } from './mode-tables.js';
import { scanSummary, tables } from './report.js';
import type { BenchResults } from './results.js';
import { markdownTable } from './table.js';

// docs/benchmarks.md is prose written by hand (what each mode measures and how) with one
// block per mode between markers, written by the script: a run of a mode replaces only its
// own block (when the page has none yet, the block is added at the end).

const begin = (mode: Mode) => `<!-- bench:${mode} -->`;
const end = (mode: Mode) => `<!-- /bench:${mode} -->`;

/** `doc` with the block of `mode` replaced by `section`, or added at the end. */
export function withSection(doc: string, mode: Mode, section: string): string {
  const block = `${begin(mode)}\n\n${section.trim()}\n\n${end(mode)}`;
  const existing = new RegExp(`${begin(mode)}[\\s\\S]*?${end(mode)}`);
  if (existing.test(doc)) return doc.replace(existing, () => block);
  return `${[doc.trimEnd(), block].filter(Boolean).join('\n\n')}\n`;
}

/** One run's block: when, how and on what load it was measured, then its tables. */
export function modeSection(results: BenchResults, chartFile?: string): string {
  const m = results.machine;
  const out = [
    `Measured on ${m.date.slice(0, 10)} as \`${results.command}\`; ${m.cpu}, ${m.cores} cores,`,
    `Node ${m.node}; load average (1 minute) when it started: ${m.loadAverage}.`,
    '',
    ...results.backends.map((b) => `- ${b.name}: ${b.where}`),
    '',
  ];
  for (const [i, t] of tables(results).entries()) {
    out.push(`### ${t.title}`, '');
    const scan = i === 0 && results.scan.length > 0;
    if (scan && chartFile) {
      out.push(`![Scan cost against partitions, hash and range, per backend](${chartFile})`, '');
    }
    out.push(markdownTable(t), '');
    if (scan) out.push(...scanSummary(results.scan), '');
  }
  const summary = modeSummary(results);
  if (summary.length > 0) out.push(...summary, '');
  return out.join('\n');
}

/** Writes the run's block where `config.out` says (and the default run's scan chart). */
export function writeReport(results: BenchResults, config: BenchConfig): string | undefined {
  const file = config.out;
  if (!file) return undefined;
  mkdirSync(dirname(file), { recursive: true });
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
  let chart: string | undefined;
  if (config.mode === 'default' && results.scan.length > 0) {
    chart = chartFileFor(file);
    const txs = results.scan[0]?.txs.toLocaleString('en-US') ?? 0;
    writeFileSync(
      chart,
      scanChart(results.scan, `Scan cost against partitions, ${txs} transactions (10% runnable)`),
    );
  }
  const section = modeSection(results, chart && basename(chart));
  writeFileSync(file, withSection(old, config.mode, section));
  return chart ? `${file} and ${chart}` : file;
}
