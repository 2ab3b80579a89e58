import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  eventually,
  mapLimit,
  overlappingRuns,
  procStep,
  readStepRuns,
  startEngineProcess,
  stopProcesses,
} from '@fate/conformance';
import { type FatesStore, instanceIdOf, openStore, Status } from '@fate/core';
import { startZooKeeper, type ZooKeeperTestService } from '@fate/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';

// One engine process is frozen (SIGSTOP) past its ZooKeeper session timeout and its
// liveness, so its session expires mid-run; the others take over its work. When it wakes
// its stale writes are fenced off, it re-registers and carries on.
const SESSION_MS = 2_000;
const LIVENESS_MS = 2_000;
let service: ZooKeeperTestService;

beforeAll(async () => {
  service = await startZooKeeper();
});

afterAll(async () => {
  await service?.stop();
});

it('completes everything when one instance’s session expires mid-run, never running a step on two live holders', async () => {
  const url = `${service.url}/fate-expiry-${randomUUID().slice(0, 8)}?sessionTimeout=${SESSION_MS}`;
  const dir = mkdtempSync(join(tmpdir(), 'fate-expiry-'));
  const log = join(dir, 'steps.log');
  const children: ChildProcess[] = [];
  let store: FatesStore | undefined;
  try {
    store = await openStore(url);
    for (const name of ['w1', 'w2', 'w3']) {
      children.push(await startEngineProcess(url, name, log, { livenessMs: LIVENESS_MS }));
    }
    // a backlog, so w1 is busy when it freezes
    const ids = await mapLimit(
      Array.from({ length: 600 }),
      32,
      async () => (await (store as FatesStore).seed({ step: procStep(3, 10), opName: 'proc' })).id,
    );
    await eventually(
      'w1 holds work',
      async () =>
        (await (store as FatesStore).reservations()).some(
          (r) => instanceIdOf(r.reservation.lockId) === 'w1',
        ),
      30_000,
    );
    const frozen = children[0] as ChildProcess;
    frozen.kill('SIGSTOP');
    const stoppedAt = Date.now();
    // past the session timeout and the liveness lease: the others see w1 dead
    await eventually(
      'w1 is dead to the others',
      async () => !(await (store as FatesStore).isAlive('w1')),
      20_000,
    );
    await new Promise((r) => setTimeout(r, SESSION_MS + 1_000));
    frozen.kill('SIGCONT');
    const resumedAt = Date.now();

    const deadline = Date.now() + 90_000;
    let done = 0;
    while (done < 600 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      done = (await store.list({ statuses: [Status.SUCCESSFUL] })).length;
    }
    expect(done).toBe(600);

    const runs = readStepRuns(log);
    // w1's runs that span the freeze belong to a holder that was dead meanwhile: excused
    const spansFreeze = (r: { instance: string; start: number; end?: number }) =>
      r.instance === 'w1' && r.start < resumedAt && (r.end ?? Number.POSITIVE_INFINITY) > stoppedAt;
    expect(overlappingRuns(runs, Date.now(), spansFreeze)).toEqual([]);
    for (const id of ids) {
      expect(new Set(runs.filter((r) => r.id === id).map((r) => r.n))).toEqual(new Set([1, 2, 3]));
    }
    // w1 came back: it did not crash, and it is live again (re-registered with a new session)
    expect([frozen.exitCode, frozen.signalCode]).toEqual([null, null]);
    await expect.poll(() => store?.isAlive('w1'), { timeout: 10_000 }).toBe(true);
  } finally {
    for (const c of children) if (c.signalCode === null) c.kill('SIGCONT');
    await stopProcesses(children);
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
