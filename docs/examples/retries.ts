import {
  Fate,
  type FateId,
  type JsonValue,
  openStore,
  type Repo,
  type StepContext,
} from '@fate/core';

class ApiDown extends Error {}

// A call to a flaky API: at most 4 calls, 1 s, 2 s, 4 s apart (less up to half of each, at
// random), each cut off after 10 s. Only ApiDown and a timeout are tried again; any other
// error fails the transaction at once, and it is rolled back as always.
class NotifyCustomer implements Repo {
  readonly type = 'notify-customer';
  readonly timeoutMs = 10_000;
  readonly retry = {
    attempts: 4,
    backoffMs: 1_000,
    retryOn: (e: unknown) =>
      e instanceof ApiDown || (e as { code?: string }).code === 'FATE_STEP_TIMEOUT',
  };
  constructor(readonly order: number) {}
  isReady(): number {
    return 0;
  }
  async call(_id: FateId, _env: unknown, { signal }: StepContext): Promise<undefined> {
    const url = `https://api.example.com/orders/${this.order}/notify`;
    const response = await fetch(url, { method: 'POST', signal }); // the signal ends it in time
    if (response.status >= 500) throw new ApiDown(`notify: HTTP ${response.status}`);
    return undefined;
  }
  undo(): void {}
  state(): JsonValue {
    return { order: this.order };
  }
}

const store = await openStore(process.env.FATE_STORE ?? 'sqlite:./fate.db');
const fate = new Fate({
  store,
  env: {},
  steps: [
    {
      type: 'notify-customer',
      fromState: (s) => new NotifyCustomer((s as { order: number }).order),
    },
  ],
  // for the steps of an op that declare no policy of their own
  retry: { billing: { attempts: 3, backoffMs: 5_000 } },
});
await fate.start();

// No engine takes it for 15 minutes, by the store's clock...
await fate.seed(new NotifyCustomer(42), { opName: 'notify', delayMs: 15 * 60_000 });
// ...or before 9:00 UTC on New Year's Day, read against the store's clock as this client knows it.
await fate.seed(new NotifyCustomer(43), {
  opName: 'notify',
  runAt: new Date('2030-01-01T09:00:00Z'),
  key: { type: 'new-year-notice', key: '43' }, // seeded again: the first one stays, deferral too
});

export { fate, store };
