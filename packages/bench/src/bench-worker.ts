// One engine process for the recovery benchmark: a Fate instance with the default liveness
// settings on the shared store. It tells the parent over IPC when it is ready and when a
// step's call begins (with its own clock: parent and child share the machine's).
import { Fate, openStore } from '@fate/core';
import { BENCH_STEPS, type BenchEnv } from './bench-steps.js';

export type WorkerMessage =
  | { readonly kind: 'ready'; readonly instance: string }
  | { readonly kind: 'step'; readonly instance: string; readonly id: string; readonly at: number };

const [url = '', instance = ''] = process.argv.slice(2);
const send = (m: WorkerMessage) => process.send?.(m);

// The defaults (liveness 3,000 ms; heartbeat and dead-holder check every quarter of it),
// the timeout spelled out because the benchmark reports what the defaults give.
const store = await openStore(url, { instanceId: instance, livenessTimeoutMs: 3_000 });
const env: BenchEnv = { onCall: (id) => send({ kind: 'step', instance, id, at: Date.now() }) };
const fate = new Fate<BenchEnv>({ store, env, steps: BENCH_STEPS, workers: 4 });
await fate.start();
send({ kind: 'ready', instance });

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  // The slow steps would hold shutdown for a minute; the benchmark is over, so do not wait.
  void fate
    .shutdown(200)
    .then(() => store.close())
    .finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
