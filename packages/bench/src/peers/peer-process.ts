// One process of a peer job queue (see peers-bench.ts, which forks it through
// BenchProcesses): its consumers on the run's queue, speaking the messages of an engine
// process (ready, step, report). Arguments: the PeerTarget as JSON, instance id, options.

import { wallNow } from '../measurements/stats.js';
import { FinishedCount, serveBenchProcess } from '../processes/process-loop.js';
import type { BenchProcessOptions, ProcessMessage } from '../processes/processes.js';
import type { PeerConsumer, PeerHooks, PeerTarget } from './peer-system.js';

const [json = '{}', instance = '', optionsJson = '{}'] = process.argv.slice(2);
const target = JSON.parse(json) as PeerTarget;
const options = JSON.parse(optionsJson) as BenchProcessOptions;
const send = (m: ProcessMessage) => process.send?.(m);

const finished = new FinishedCount();
const hooks: PeerHooks = {
  onFinished: () => finished.finished(),
  ...(options.silent
    ? {}
    : { onStart: (id) => send({ kind: 'step', instance, id, at: wallNow() }) }),
};

async function consumer(workers: number): Promise<PeerConsumer> {
  switch (target.peer) {
    case 'bullmq':
      return (await import('./bullmq-peer.js')).bullmqConsumer(target, workers, hooks);
    case 'plainjob':
      return (await import('./plainjob-peer.js')).plainjobConsumer(target, workers, hooks);
    case 'graphile-worker':
      return (await import('./graphile-peer.js')).graphileConsumer(target, workers, hooks);
  }
}

const consumers = await consumer(options.workers ?? 4);
await serveBenchProcess(instance, options, consumers, finished);
