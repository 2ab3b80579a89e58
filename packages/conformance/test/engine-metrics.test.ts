// The engine's metrics of retries, overdue steps, cluster-wide limits, children and schedules
// (issue 25), read as an application reads them: through an OpenTelemetry SDK MeterProvider
// with a reader the test collects from. One engine on the memory backend, in the
// simulation's virtual time (fake timers and `node:timers/promises`), so nothing waits.

import { enterWorld, type World } from '@fate/conformance/simulation';
import {
  awaitChildren,
  createFatesStore,
  dropMemoryNamespace,
  Fate,
  type FateId,
  type JsonValue,
  MemoryBackend,
  type Repo,
  type RetryPolicy,
} from '@fate/core';
import { afterEach, expect, it } from 'vitest';
import { collect, meters, total } from './metrics-reader.js';

interface Spec {
  /** How long `call` works (virtual ms); it ignores its signal. */
  readonly ms: number;
  /** `call` throws while fewer than this many calls of it threw. */
  readonly fails?: number;
  readonly timeoutMs?: number;
  readonly retries?: number;
}
const thrown = new Map<string, number>();

class Work implements Repo {
  readonly type = 'work';
  constructor(readonly s: Spec) {}
  get retry(): RetryPolicy | undefined {
    return this.s.retries ? { attempts: this.s.retries, backoffMs: 100, jitter: 0 } : undefined;
  }
  get timeoutMs(): number | undefined {
    return this.s.timeoutMs;
  }
  isReady(): number {
    return 0;
  }
  async call(id: FateId): Promise<undefined> {
    await new Promise((r) => setTimeout(r, this.s.ms));
    const n = thrown.get(id) ?? 0;
    if (n < (this.s.fails ?? 0)) {
      thrown.set(id, n + 1);
      throw new Error(`attempt ${n + 1} fails`);
    }
    return undefined;
  }
  undo(): void {}
  state(): JsonValue {
    return this.s as unknown as JsonValue;
  }
}

let world: World | undefined;
afterEach(() => {
  world?.leave();
  world = undefined;
});

it('counts retries, overdue steps, limit waits and slots, woken parents and scheduled seeds', async () => {
  world = enterWorld(25);
  const { reader, meterProvider } = meters();
  const ns = 'engine-metrics';
  const store = await createFatesStore(new MemoryBackend(ns), {
    instanceId: 'metrics-1',
    livenessTimeoutMs: 30_000, // the stalled loop below does not lapse its lease
  });
  const fate = new Fate({
    store,
    env: {},
    steps: [{ type: 'work', fromState: (s) => new Work(s as unknown as Spec) }],
    workers: 3,
    limits: { limited: { concurrency: 1 } },
    meterProvider,
    logger: { error() {}, warn() {}, info() {}, debug() {} },
  });
  fate.schedule('every-second', '* * * * * *', () => new Work({ ms: 10 }), { catchUp: 'latest' });
  try {
    await fate.start();
    const seeded = [
      // fails twice, succeeds on its third attempt: two retries
      await fate.seed(new Work({ ms: 10, fails: 2, retries: 3 }), { opName: 'flaky' }),
      // ignores its 100 ms timeout and runs 2.5 s: overdue once, a second after the timeout
      await fate.seed(new Work({ ms: 2_500, timeoutMs: 100 }), { opName: 'slow' }),
      // two of a limited op at once: one waits for the other's slot
      await fate.seed(new Work({ ms: 500 }), { opName: 'limited' }),
      await fate.seed(new Work({ ms: 500 }), { opName: 'limited' }),
      // a parent whose child's engine wakes it
      await fate.seed(
        awaitChildren(
          [{ name: 'c', opName: 'child', step: new Work({ ms: 200 }) }],
          new Work({ ms: 1 }),
        ),
        { opName: 'parent' },
      ),
    ];
    await world.clock.tickAsync(3_200);
    // a stalled event loop: the schedule is judged 4 s late and seeds only the latest due time
    world.clock.tick(4_000);
    await world.clock.tickAsync(3_000);
    const statuses = await Promise.all(seeded.map(async ({ id }) => (await fate.read(id)).status));
    // the slow one failed its attempt on its timeout (no retries)
    expect(statuses).toEqual(['SUCCESSFUL', 'FAILED', 'SUCCESSFUL', 'SUCCESSFUL', 'SUCCESSFUL']);
    await fate.shutdown();

    const sums = new Map(
      [...(await collect(reader))].map(([name, points]) => [name, total(points)]),
    );
    expect(sums.get('fate.steps.retries')).toBe(2);
    expect(sums.get('fate.steps.overdue')).toBe(1);
    expect(sums.get('fate.limit.acquired')).toBe(2);
    expect(sums.get('fate.limit.waits')).toBeGreaterThanOrEqual(1);
    expect(sums.get('fate.children.woken')).toBe(1);
    expect(sums.get('fate.schedule.seeded')).toBeGreaterThanOrEqual(5);
    expect(sums.get('fate.schedule.skipped')).toBeGreaterThanOrEqual(1);
  } finally {
    await fate.shutdown().catch(() => undefined);
    await store.close();
    await meterProvider.shutdown();
    dropMemoryNamespace(ns);
  }
});

it('counts deferred seeds by op and kind, and step calls by their transaction’s priority', async () => {
  world = enterWorld(26);
  const { reader, meterProvider } = meters();
  const ns = 'engine-metrics-seeds';
  const store = await createFatesStore(new MemoryBackend(ns), { instanceId: 'metrics-2' });
  const fate = new Fate({
    store,
    env: {},
    steps: [{ type: 'work', fromState: (s) => new Work(s as unknown as Spec) }],
    meterProvider,
    logger: { error() {}, warn() {}, info() {}, debug() {} },
  });
  try {
    await fate.start();
    const work = () => new Work({ ms: 1 });
    const ids = [
      (await fate.seed(work(), { opName: 'later', delayMs: 500, priority: 3 })).id,
      (await fate.seed(work(), { opName: 'later', delayMs: 0, priority: 3 })).id, // not deferred
      (await fate.seed(work(), { opName: 'at', runAt: Date.now() + 800, priority: -2 })).id,
      (await fate.seed(work(), { opName: 'at', runAt: Date.now() - 1 })).id, // past: runs now
      (await fate.seed(work(), { opName: 'keyed', delayMs: 300, key: { type: 'k', key: '1' } })).id,
    ];
    // a keyed repeat finds its transaction: nothing is stored, nothing counted
    await fate.seed(work(), { opName: 'keyed', delayMs: 300, key: { type: 'k', key: '1' } });
    await world.clock.tickAsync(2_000);
    const statuses = await Promise.all(ids.map(async (id) => (await fate.read(id)).status));
    expect(statuses).toEqual(ids.map(() => 'SUCCESSFUL'));
    await fate.shutdown();

    const m = await collect(reader);
    const deferred = m.get('fate.seeds.deferred');
    expect(total(deferred)).toBe(3);
    expect(total(deferred, { 'fate.op': 'later', 'fate.deferral': 'delayMs' })).toBe(1);
    expect(total(deferred, { 'fate.op': 'at', 'fate.deferral': 'runAt' })).toBe(1);
    expect(total(deferred, { 'fate.op': 'keyed', 'fate.deferral': 'delayMs' })).toBe(1);
    const started = m.get('fate.steps.started');
    expect(total(started, { 'fate.priority': 3 })).toBe(2);
    expect(total(started, { 'fate.priority': -2 })).toBe(1);
    expect(total(started, { 'fate.priority': 0 })).toBe(2);
  } finally {
    await fate.shutdown().catch(() => undefined);
    await store.close();
    await meterProvider.shutdown();
    dropMemoryNamespace(ns);
  }
});
