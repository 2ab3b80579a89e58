import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_BACKENDS, type BackendName, KNOWN_BACKENDS } from './bench-backends.js';

export type Measure = 'latency' | 'throughput' | 'recovery' | 'scan';
/** In the order they run: the large scan store last, so it cannot slow the others. */
export const MEASURES: readonly Measure[] = ['latency', 'throughput', 'recovery', 'scan'];

/** What one run measures, and how much. */
export interface BenchConfig {
  readonly backends: readonly BackendName[];
  readonly measures: readonly Measure[];
  readonly quick: boolean;
  readonly json: boolean;
  /** The markdown report to write, or undefined (a quick run writes none unless asked). */
  readonly out: string | undefined;
  /** Transactions in the scan benchmark's store (10% runnable). */
  readonly txs: number;
  readonly partitions: readonly number[];
  /** Scans per (partition, strategy); the median counts. */
  readonly scanRepeats: number;
  /** Requests in flight while loading the scan store and seeding throughput runs. */
  readonly inFlight: number;
  /** Transactions per throughput configuration. */
  readonly throughputTxs: number;
  readonly throughputWorkers: number;
  readonly latencySamples: number;
  /** Pause between latency samples, ms: a random value in [min, max]. */
  readonly latencySpacingMs: readonly [number, number];
  readonly recoveryTrials: number;
}

export const USAGE = `usage: node packages/bench/dist/main.js [options]
  --backend sqlite|redis|zk|postgres|memory|redis-cluster|all
                      which store (default all = sqlite, redis, zk, postgres); redis-cluster
                      starts 3 masters and runs throughput on 1 and 3 shards with as many
                      instances, with the commands each master ran
  --txs N             transactions in the scan benchmark's store (default 100000; quick 5000)
  --partitions P      only this partition count (default 1,2,4,8,16)
  --measures LIST     some of latency,throughput,recovery,scan (default all four)
  --quick             small sizes and few samples: a smoke run of about a minute
  --json              print only the JSON document on stdout (progress goes to stderr)
  --out FILE          write the markdown report there, its chart beside it (NAME-scan.svg);
                      a full run with none of the options above writes docs/benchmarks.md`;

/** The repository root: this file is packages/bench/dist/bench-config.js. */
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function positive(name: string, raw: string | undefined): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} needs a positive integer`);
  return n;
}

/** Parses the command line; a mistake is an Error whose message is shown with the usage. */
export function parseArgs(argv: readonly string[]): BenchConfig | 'help' {
  let backend = 'all';
  let txs: number | undefined;
  let partitions: number[] | undefined;
  let quick = false;
  let json = false;
  let out: string | undefined;
  let measures: readonly Measure[] = MEASURES;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--help' || arg === '-h') return 'help';
    else if (arg === '--backend') backend = value();
    else if (arg === '--txs') txs = positive('txs', value());
    else if (arg === '--partitions') partitions = [positive('partitions', value())];
    else if (arg === '--quick') quick = true;
    else if (arg === '--json') json = true;
    else if (arg === '--out') out = resolve(value());
    else if (arg === '--measures') {
      const wanted = value().split(',');
      const unknown = wanted.filter((m) => !MEASURES.includes(m as Measure));
      if (unknown.length > 0) throw new Error(`unknown measure ${unknown.join(', ')}`);
      measures = MEASURES.filter((m) => wanted.includes(m));
    } else throw new Error(`unknown option ${arg}`);
  }
  const backends = backend === 'all' ? ALL_BACKENDS : KNOWN_BACKENDS.filter((b) => b === backend);
  if (backends.length === 0) throw new Error(`unknown backend ${backend}`);
  const complete =
    !quick &&
    backend === 'all' &&
    measures.length === MEASURES.length &&
    txs === undefined &&
    partitions === undefined;
  const settings: BenchConfig = {
    backends,
    measures,
    quick,
    json,
    // Only a complete default run replaces the repository's report; a partial one writes
    // where --out says, or nowhere.
    out: out ?? (complete ? resolve(REPO, 'docs/benchmarks.md') : undefined),
    txs: txs ?? (quick ? 5_000 : 100_000),
    partitions: partitions ?? [1, 2, 4, 8, 16],
    scanRepeats: 3,
    inFlight: 64,
    throughputTxs: quick ? 300 : 5_000,
    throughputWorkers: 16,
    latencySamples: quick ? 50 : 200,
    latencySpacingMs: quick ? [10, 30] : [50, 150],
    recoveryTrials: quick ? 1 : 3,
  };
  return Object.freeze(settings);
}
