// One process of a peer job queue (see peers-bench.ts, which forks it through
// BenchProcesses): its consumers on the run's queue, speaking the messages of an engine
// process (ready, step, report). Arguments: the PeerTarget as JSON, instance id, options.

import { wallNow } from '../measurements/stats.js';
import type { BenchProcessOptions, ParentMessage, ProcessMessage } from '../processes/processes.js';
import type { PeerConsumer, PeerHooks, PeerTarget } from './peer-system.js';

const [json = '{}', instance = '', optionsJson = '{}'] = process.argv.slice(2);
const target = JSON.parse(json) as PeerTarget;
const options = JSON.parse(optionsJson) as BenchProcessOptions;
const send = (m: ProcessMessage) => process.send?.(m);

let finished = 0;
let lastFinishedAt = 0;
const hooks: PeerHooks = {
  onFinished: () => {
    finished++;
    lastFinishedAt = wallNow();
  },
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
let cpuAtGo = process.cpuUsage();
const start = () =>
  consumers.start().catch((error: unknown) => {
    process.stderr.write(`${instance}: cannot start: ${String(error)}\n`);
    process.exit(1);
  });
process.on('message', (m: ParentMessage) => {
  if (m.kind === 'go') {
    cpuAtGo = process.cpuUsage();
    void start();
  } else if (m.kind === 'report') {
    const cpu = process.cpuUsage(cpuAtGo);
    send({ kind: 'report', instance, cpuUs: cpu.user + cpu.system, finished, lastFinishedAt });
  }
});
if (!options.startOnGo) await start();
send({ kind: 'ready', instance });

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void consumers
    .stop()
    .catch(() => undefined)
    .finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
