import { Fate, type JsonValue, openStore, type Repo } from '@fate/core';

// One transaction per due time: the step gets the due time (store clock) it was seeded for.
class NightlyReport implements Repo {
  readonly type = 'nightly-report';
  constructor(readonly due: string) {}
  isReady(): number {
    return 0;
  }
  call(): undefined {
    console.log(`report for ${this.due}`);
    return undefined;
  }
  undo(): void {}
  state(): JsonValue {
    return { due: this.due };
  }
}

const store = await openStore(process.env.FATE_STORE ?? 'sqlite:./fate.db');
const fate = new Fate({
  store,
  env: {},
  steps: [
    { type: 'nightly-report', fromState: (s) => new NightlyReport((s as { due: string }).due) },
  ],
});
// Every engine that registers it takes part; each due time is seeded once in all of them.
fate.schedule('nightly-report', '0 3 * * *', (due) => new NightlyReport(due.toISOString()), {
  timezone: 'Europe/Berlin', // 03:00 Berlin time, daylight saving included
  catchUp: 'latest', // after downtime: seed the most recent missed due time only
});
await fate.start();

export { fate, store };
