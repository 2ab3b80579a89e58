import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs as parseCommandLine } from 'node:util';
import { ALL_BACKENDS, type BackendName, KNOWN_BACKENDS } from './services/backends.js';

export type Measure = 'latency' | 'throughput' | 'recovery' | 'scan';
/** In the order they run: the large scan store last, so it cannot slow the others. */
export const MEASURES: readonly Measure[] = ['latency', 'throughput', 'recovery', 'scan'];

/** `default` runs MEASURES; each other mode is one benchmark of its own. */
export type Mode = 'default' | 'storm' | 'backlog' | 'pools' | 'roundtrips' | 'peers';
export const MODES: readonly Mode[] = [
  'default',
  'storm',
  'backlog',
  'pools',
  'roundtrips',
  'peers',
];

/** What one run measures, and how much. */
export interface BenchConfig {
  readonly mode: Mode;
  readonly backends: readonly BackendName[];
  /** What the default mode runs. */
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
  readonly stormTxs: number;
  readonly stormKills: number;
  readonly stormKillEveryMs: number;
  readonly backlogTxs: number;
  /** ZooKeeper drains a smaller backlog: 20,000 would take minutes per run. */
  readonly backlogZkTxs: number;
  readonly backlogLayouts: ReadonlyArray<{ readonly processes: number; readonly workers: number }>;
  readonly backlogRepeats: number;
  readonly poolsFast: number;
  readonly poolsSlow: number;
  readonly roundTripTxs: number;
}

export const USAGE = `usage: node packages/bench/dist/main.js [options]
  --mode MODE         default: scan cost, throughput, latency and recovery (below); or one of
                      storm       engine processes SIGKILLed every 2 s: kill-to-resume times
                      backlog     engine processes draining a seeded backlog: tx/s and CPU per
                                  transaction; seed-to-start from another process
                      pools       fast-op latency behind slow work, with and without pools
                      roundtrips  backend calls per one-step and five-step transaction
                      peers       the backlog and latency of backlog mode, beside BullMQ
                                  (Redis), plainjob (SQLite) and graphile-worker (PostgreSQL)
                      scale       admin and periodic operations at 100k / 1M retained
                                  (SQLite, PostgreSQL): see measurements/scale/scale-main.ts
  --backend sqlite|redis|zk|postgres|memory|redis-cluster|all
                      which store (default all = sqlite, redis, zk, postgres); redis-cluster
                      starts 3 masters and runs throughput on 1 and 3 shards with as many
                      instances, with the commands each master ran
  --txs N             transactions: in the scan benchmark's store (default 100000; quick 5000);
                      storm 3000 (quick 1000); backlog 20000, on zk 5000 (quick 300);
                      roundtrips 500 (quick 50); pools: fast samples 200 (quick 20)
  --kills K           storm: SIGKILLs, one every 2 s (default 10; quick 2, 1 s apart)
  --partitions P      only this partition count (default 1,2,4,8,16)
  --measures LIST     default mode: some of latency,throughput,recovery,scan (default all four)
  --quick             small sizes and few samples: a smoke run
  --json              print only the JSON document on stdout (progress goes to stderr)
  --out FILE          write the markdown report there, its chart beside it (NAME-scan.svg);
                      a full run of a mode with none of the options above writes
                      docs/benchmarks.md (another mode's sections there are kept)`;

/** The repository root: this file is packages/bench/dist/config.js. */
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function positive(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} needs a positive integer`);
  return n;
}

/** Parses the command line; a mistake is an Error whose message is shown with the usage. */
export function parseArgs(argv: readonly string[]): BenchConfig | 'help' {
  const { values: v } = parseCommandLine({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      help: { type: 'boolean', short: 'h' },
      mode: { type: 'string', default: 'default' },
      backend: { type: 'string', default: 'all' },
      txs: { type: 'string' },
      kills: { type: 'string' },
      partitions: { type: 'string' },
      measures: { type: 'string' },
      quick: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      out: { type: 'string' },
    },
  });
  if (v.help) return 'help';
  const mode = MODES.find((m) => m === v.mode);
  if (!mode) throw new Error(`unknown mode ${v.mode}`);
  const backends =
    v.backend === 'all' ? ALL_BACKENDS : KNOWN_BACKENDS.filter((b) => b === v.backend);
  if (backends.length === 0) throw new Error(`unknown backend ${v.backend}`);
  const txs = positive('txs', v.txs);
  const kills = positive('kills', v.kills);
  const partition = positive('partitions', v.partitions);
  let measures = MEASURES;
  if (v.measures !== undefined) {
    const wanted = v.measures.split(',');
    const unknown = wanted.filter((m) => !MEASURES.includes(m as Measure));
    if (unknown.length > 0) throw new Error(`unknown measure ${unknown.join(', ')}`);
    measures = MEASURES.filter((m) => wanted.includes(m));
  }
  const quick = v.quick;
  const complete =
    !quick &&
    v.backend === 'all' &&
    measures.length === MEASURES.length &&
    txs === undefined &&
    kills === undefined &&
    partition === undefined;
  const settings: BenchConfig = {
    mode,
    backends,
    measures,
    quick,
    json: v.json,
    // Only a complete run replaces the repository's report (a mode: its own sections); a
    // partial one writes where --out says, or nowhere.
    out: v.out ? resolve(v.out) : complete ? resolve(REPO, 'docs/benchmarks.md') : undefined,
    txs: (mode === 'default' ? txs : undefined) ?? (quick ? 5_000 : 100_000),
    partitions: partition ? [partition] : [1, 2, 4, 8, 16],
    scanRepeats: 3,
    inFlight: 64,
    throughputTxs: quick ? 300 : 5_000,
    throughputWorkers: 16,
    latencySamples: quick ? 50 : 200,
    latencySpacingMs: quick ? [10, 30] : [50, 150],
    recoveryTrials: quick ? 1 : 3,
    // quick: the work (about 2.5 s) still outlasts the first kill
    stormTxs: txs ?? (quick ? 1_000 : 3_000),
    stormKills: kills ?? (quick ? 2 : 10),
    stormKillEveryMs: quick ? 1_000 : 2_000,
    backlogTxs: txs ?? (quick ? 300 : 20_000),
    backlogZkTxs: txs ?? (quick ? 300 : 5_000),
    backlogLayouts: [
      ...(mode === 'peers' ? [{ processes: 1, workers: 1 }] : []),
      { processes: 1, workers: 16 },
      { processes: 2, workers: 16 },
    ],
    backlogRepeats: quick ? 1 : 3,
    poolsFast: txs ?? (quick ? 20 : 200),
    poolsSlow: quick ? 20 : 300,
    roundTripTxs: txs ?? (quick ? 50 : 500),
  };
  return Object.freeze(settings);
}
