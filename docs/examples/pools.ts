import { Fate, openStore, type StepType } from '@fate/core';

declare const steps: StepType<void>[]; // your step types

const store = await openStore(process.env.FATE_STORE ?? 'sqlite:./fate.db');
const fate = new Fate<void>({
  store,
  env: undefined,
  steps,
  // Long operations get their own workers, so quick ones never wait behind them.
  pools: [
    { name: 'slow', ops: ['migrate', 'compact'], workers: 2 },
    { name: 'default', workers: 8 }, // no ops: every other op (the catch-all)
  ],
  retentionMs: 3 * 24 * 60 * 60 * 1_000, // finished transactions are deleted after 3 days
});
await fate.start();
console.log(fate.pools()); // [{ name: 'slow', workers: 2, busy: 0, idle: 2, queued: 0 }, …]
