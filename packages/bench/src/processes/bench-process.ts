// One engine process for the benchmarks that need several (recovery, storm, backlog,
// latency from another process): a Fate instance with the default liveness settings on the
// shared store. Arguments: store URL, instance id, BenchProcessOptions as JSON (see
// processes.ts, which forks it).
import { appendFileSync } from 'node:fs';
import { Fate, openStore } from '@fate/core';
import { wallNow } from '../measurements/stats.js';
import { FinishedCount, serveBenchProcess } from './process-loop.js';
import type { BenchProcessOptions, ProcessMessage } from './processes.js';
import { BENCH_STEPS, type BenchEnv } from './steps.js';

const [url = '', instance = '', json = '{}'] = process.argv.slice(2);
const options = JSON.parse(json) as BenchProcessOptions;
const send = (m: ProcessMessage) => process.send?.(m);

const log = options.log;
const env: BenchEnv = log
  ? {
      // Date.now(): the wall clock the parent stamps its kills with.
      onCall: (id, _type, n) => appendFileSync(log, `start ${instance} ${id} ${n} ${Date.now()}\n`),
      onEnd: (id, n) => appendFileSync(log, `end ${instance} ${id} ${n} ${Date.now()}\n`),
    }
  : options.silent
    ? { onCall: () => undefined }
    : { onCall: (id) => send({ kind: 'step', instance, id, at: wallNow() }) };

const finished = new FinishedCount();
// The defaults (liveness 3,000 ms; heartbeat and dead-holder check every quarter of it),
// the timeout spelled out because the benchmarks report what the defaults give.
const store = await openStore(url, { instanceId: instance, livenessTimeoutMs: 3_000 });
const fate = new Fate<BenchEnv>({
  store,
  env,
  steps: BENCH_STEPS,
  ...(options.pools ? { pools: options.pools } : { workers: options.workers ?? 4 }),
  onEvent: (type) => {
    if (type === 'finished') finished.finished();
  },
});

await serveBenchProcess(
  instance,
  options,
  {
    start: () => fate.start(),
    // Slow steps would hold shutdown for a minute; the benchmark is over, so do not wait.
    stop: () => fate.shutdown(200).then(() => store.close()),
  },
  finished,
);
