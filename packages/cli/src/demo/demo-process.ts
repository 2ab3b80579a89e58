// One demo process: a Fate engine with 8 workers on the shared store. It reports
// to the parent over IPC: ready, each step start, and each finished transaction.
import { Fate, openStore } from '@fate/core';
import { type DemoEnv, orderStepType } from './order-steps.js';

export type ProcessMessage =
  | { readonly kind: 'ready'; readonly instance: string }
  | { readonly kind: 'step'; readonly instance: string; readonly id: string; readonly at: number }
  | {
      readonly kind: 'finished';
      readonly instance: string;
      readonly id: string;
      readonly status: string;
    };

const [url = '', instance = ''] = process.argv.slice(2);
const send = (m: ProcessMessage) => process.send?.(m);

const store = await openStore(url, { instanceId: instance });
const env: DemoEnv = {
  onStep: (id) => send({ kind: 'step', instance, id, at: Date.now() }),
  onUndo: () => undefined,
};
const fate = new Fate<DemoEnv>({
  store,
  env,
  steps: [orderStepType],
  workers: 8,
  onEvent: (type, e) => {
    if (type === 'finished') {
      const f = e as { id: string; status: string };
      send({ kind: 'finished', instance, id: f.id, status: f.status });
    }
  },
});
await fate.start();
send({ kind: 'ready', instance });

process.on('SIGTERM', () => {
  void fate
    .shutdown(10_000)
    .then(() => store.close())
    .finally(() => process.exit(0));
});
process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
