#!/usr/bin/env node
// fate's benchmark script (never a test): scan cost by partitioning strategy, throughput,
// seed-to-start latency and crash recovery, per backend; or one mode (storm, backlog, pools,
// round trips). See USAGE in config.ts.
import { openStore } from '@fate/core';
import { type BenchConfig, type Measure, type Mode, parseArgs, USAGE } from './config.js';
import { benchBacklog } from './measurements/backlog.js';
import { benchLatency } from './measurements/latency.js';
import { benchProcessLatency } from './measurements/latency-process.js';
import { benchPools } from './measurements/pools.js';
import { benchRecovery } from './measurements/recovery.js';
import { benchRoundTrips } from './measurements/roundtrips.js';
import { benchScan } from './measurements/scan.js';
import { benchStorm } from './measurements/storm.js';
import { benchThroughput } from './measurements/throughput.js';
import { benchPeerOf } from './peers/peers-bench.js';
import { writeReport } from './reporting/doc.js';
import { textReport } from './reporting/report.js';
import {
  type BenchResults,
  describeBackend,
  describeMachine,
  progress,
} from './reporting/results.js';
import { type BenchBackend, startBackend } from './services/backends.js';

/** What runs per backend: a measure of the default mode, or a part of another mode. */
type Part = Measure | Exclude<Mode, 'default'> | 'processLatency';
const PARTS: Record<Exclude<Mode, 'default'>, readonly Part[]> = {
  storm: ['storm'],
  backlog: ['backlog', 'processLatency'],
  pools: ['pools'],
  roundtrips: ['roundtrips'],
  peers: ['backlog', 'processLatency', 'peers'],
};

// `--mode scale` has options of its own (measurements/scale/scale-main.ts) and its own report.
const modeAt = process.argv.indexOf('--mode');
if (process.argv[modeAt + 1] === 'scale' || process.argv.includes('--mode=scale')) {
  const { scaleMain } = await import('./measurements/scale/scale-main.js');
  process.exit(await scaleMain(process.argv.slice(2)));
}

let config: BenchConfig | 'help';
try {
  config = parseArgs(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
  process.exit(2);
}
if (config === 'help') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const cfg = config;

// Ctrl-C: exit through 'exit', where the private servers and temp files are removed.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

const results: BenchResults = {
  machine: describeMachine(),
  command: ['node packages/bench/dist/main.js', ...process.argv.slice(2)].join(' '),
  quick: cfg.quick,
  backends: [],
  scan: [],
  throughput: [],
  latency: [],
  recovery: [],
  storm: [],
  processLatency: [],
  backlog: [],
  pools: [],
  roundTrips: [],
  peers: [],
  peerLatency: [],
  errors: [],
};
const started = Date.now();
const mode = cfg.mode === 'default' ? '' : ` --mode ${cfg.mode}`;
progress(`fate bench${mode}${cfg.quick ? ' --quick' : ''}: ${cfg.backends.join(', ')}`);

// Servers start together (ZooKeeper's JVM takes seconds); measuring starts once all are up.
const backends = await Promise.allSettled(cfg.backends.map((name) => startBackend(name)));
for (const [i, outcome] of backends.entries()) {
  const name = cfg.backends[i] ?? 'sqlite';
  if (outcome.status === 'rejected') {
    results.errors.push({ backend: name, measure: 'start', message: String(outcome.reason) });
    progress(`${name}: cannot start: ${String(outcome.reason)}`);
    continue;
  }
  await measureBackend(outcome.value);
}

async function measureBackend(backend: BenchBackend): Promise<void> {
  const info = { name: backend.name, where: backend.where, ...(await capabilitiesOf(backend)) };
  results.backends.push(info);
  progress(describeBackend(info));
  const runs: Record<Part, () => Promise<unknown>> = {
    latency: () => benchLatency(backend, cfg).then((r) => results.latency.push(...r)),
    throughput: () => benchThroughput(backend, cfg).then((r) => results.throughput.push(...r)),
    recovery: () => benchRecovery(backend, cfg).then((r) => results.recovery.push(...r)),
    scan: () => benchScan(backend, cfg).then((r) => results.scan.push(...r)),
    storm: () => benchStorm(backend, cfg).then((r) => results.storm.push(...r)),
    backlog: () => benchBacklog(backend, cfg).then((r) => results.backlog.push(...r)),
    processLatency: () =>
      benchProcessLatency(backend, cfg).then((r) => results.processLatency.push(...r)),
    pools: () => benchPools(backend, cfg).then((r) => results.pools.push(...r)),
    roundtrips: () => benchRoundTrips(backend, cfg).then((r) => results.roundTrips.push(...r)),
    peers: () =>
      benchPeerOf(backend.name, cfg).then((r) => {
        results.peers.push(...r.rows);
        results.peerLatency.push(...r.latency);
      }),
  };
  try {
    for (const measure of cfg.mode === 'default' ? cfg.measures : PARTS[cfg.mode]) {
      try {
        await runs[measure]();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        results.errors.push({ backend: backend.name, measure, message });
        progress(`  ${measure} failed: ${message}`);
      }
    }
  } finally {
    await backend.stop().catch((error) => progress(`  cleanup failed: ${String(error)}`));
  }
}

/** What the backend declares (read from a throwaway namespace); nothing when it cannot open. */
async function capabilitiesOf(backend: BenchBackend) {
  const ns = await backend.namespace().catch(() => undefined);
  try {
    if (!ns) return {};
    const store = await openStore(ns.url);
    const { sortedScan, wakeups } = store.capabilities;
    await store.close();
    return { sortedScan, wakeups };
  } catch {
    return {};
  } finally {
    await ns?.destroy().catch(() => undefined);
  }
}

progress(`done in ${((Date.now() - started) / 1_000).toFixed(1)} s`);
if (cfg.json) {
  const rounded = (_: string, v: unknown) =>
    typeof v === 'number' && !Number.isInteger(v) ? Math.round(v * 1_000) / 1_000 : v;
  process.stdout.write(`${JSON.stringify(results, rounded, 2)}\n`);
} else {
  process.stdout.write(`${textReport(results)}\n`);
}
const written = writeReport(results, cfg);
if (written) progress(`wrote ${written}`);
process.exitCode = results.errors.length > 0 ? 1 : 0;
