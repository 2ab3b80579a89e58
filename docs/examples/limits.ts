import { Fate, openStore, type StepType } from '@fate/core';

declare const steps: StepType<void>[]; // your step types

const store = await openStore(process.env.FATE_STORE ?? 'sqlite:./fate.db');
const fate = new Fate<void>({
  store,
  env: undefined,
  steps,
  workers: 16,
  // Cluster-wide, whatever the number of engines (give every engine the same limits):
  limits: {
    'charge-card': { concurrency: 5, perSecond: 20 }, // at most 5 at once, 20 starts a second
    'send-email': { perSecond: 2 },
  },
});
await fate.start();

export { fate, store };
