// A fate engine in a child process, for the kill tests. Each step appends `start` and
// `end` lines (`<event> <instance> <id> <n> <epoch ms>`) to a log file synchronously, so
// a SIGKILL loses nothing that was logged. Times are the real clock (the process start
// plus the monotonic clock), even when FATE_TEST_CLOCK_SKEW_MS sets this process's
// Date.now() off by that much, as on a host whose clock is wrong.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { Fate, type FateId, type JsonValue, type Repo, type StepType } from '@fate/core';
import { openChildStore } from './open.js';

const skew = Number(process.env.FATE_TEST_CLOCK_SKEW_MS ?? 0);
if (skew) {
  const realNow = Date.now.bind(Date);
  Date.now = () => realNow() + skew;
}
const realTime = () => Math.round(performance.timeOrigin + performance.now());

const [url, instanceId, logFile, workers, livenessMs, backendModule] = process.argv.slice(2);

interface ProcState {
  readonly n: number;
  readonly total: number;
  readonly sleepMs: number;
  /** Step 1 first asks to wait this long (once, across all processes: the log says). */
  readonly deferMs?: number;
}

const log = (line: string) => appendFileSync(logFile as string, `${line} ${realTime()}\n`);

class ProcStep implements Repo<void> {
  readonly type = 'proc';
  constructor(readonly s: ProcState) {}
  isReady(id: FateId): number {
    if (!this.s.deferMs || this.s.n !== 1) return 0;
    // the log exists once any step logged; before that, nothing was deferred either
    const logged = existsSync(logFile as string) ? readFileSync(logFile as string, 'utf8') : '';
    if (logged.includes(`defer ${id}`)) return 0;
    log(`defer ${id} ${instanceId} 0`);
    return this.s.deferMs;
  }
  async call(id: FateId): Promise<ProcStep | undefined> {
    log(`start ${instanceId} ${id} ${this.s.n}`);
    await new Promise((r) => setTimeout(r, this.s.sleepMs));
    log(`end ${instanceId} ${id} ${this.s.n}`);
    return this.s.n < this.s.total ? new ProcStep({ ...this.s, n: this.s.n + 1 }) : undefined;
  }
  undo(): void {}
  state(): JsonValue {
    return { ...this.s };
  }
  returnValue(): JsonValue {
    return this.s.total;
  }
}

const procStepType: StepType<void> = {
  type: 'proc',
  fromState: (s) => new ProcStep(s as unknown as ProcState),
};

const liveness = Number(livenessMs);
const store = await openChildStore(url as string, backendModule || undefined, {
  instanceId: instanceId as string,
  livenessTimeoutMs: liveness,
});
const fate = new Fate<void>({
  onEvent: (type, e) => {
    if (type === 'warning' && process.env.FATE_DEBUG)
      console.error(
        instanceId,
        (e as { message: string }).message,
        String((e as { error?: unknown }).error),
      );
  },
  store,
  env: undefined,
  steps: [procStepType],
  workers: Number(workers),
  heartbeatMs: Math.max(50, Math.floor(liveness / 6)),
  deadReservationCheckMs: Math.max(50, Math.floor(liveness / 6)),
  finderBackoff: { minMs: 10, maxMs: 250 },
});
await fate.start();
process.send?.('ready');
process.on('SIGTERM', () => {
  void fate
    .shutdown(10_000)
    .then(() => store.close())
    .then(() => process.exit(0));
});
