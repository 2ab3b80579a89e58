import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  eventually,
  mapLimit,
  overlappingRuns,
  procStep,
  readStepRuns,
  type StepRun,
  startEngineProcess,
  stopProcesses,
} from '@fate/conformance/harness';
import { type FateId, type FatesStore, openStore, Status } from '@fate/core';
import { startZooKeeperEnsemble, type ZooKeeperEnsemble } from '@fate/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';

// Three engine processes on a three-server ensemble; the ensemble's leader is SIGKILLed
// mid-run and restarted a few seconds later. Every client loses its connection while the
// others elect a new leader (followers drop their clients too); the engines must ride
// that out on their sessions, finish everything, and never run a step on two holders.
const TXS = 300;
const SESSION_MS = 4_000;
const LIVENESS_MS = 3_000;
const RESTART_AFTER_MS = 3_000;
let ensemble: ZooKeeperEnsemble;

beforeAll(async () => {
  ensemble = await startZooKeeperEnsemble();
});

afterAll(async () => {
  await ensemble?.stop();
});

/** The largest gap between consecutive step starts from `from` on, and where it began. */
function largestPause(runs: readonly StepRun[], from: number): { ms: number; at: number } {
  const starts = runs.map((r) => r.start).filter((t) => t >= from);
  starts.sort((a, b) => a - b);
  let pause = { ms: 0, at: from };
  for (let i = 1; i < starts.length; i++) {
    const gap = (starts[i] as number) - (starts[i - 1] as number);
    if (gap > pause.ms) pause = { ms: gap, at: starts[i - 1] as number };
  }
  return pause;
}

/**
 * What became of the transactions that did not succeed, to say why in a failure (seen:
 * SUBMITTED, no step run, held by a live engine whose reserving write was applied but
 * answered with a connection loss, so no handle of that engine ever releases it).
 */
async function unfinished(store: FatesStore, ids: readonly FateId[], log: string) {
  const runs = readStepRuns(log);
  const views = await mapLimit(ids, 16, (id) => store.read(id));
  return views
    .filter((v) => v.status !== Status.SUCCESSFUL)
    .map((v) => ({
      id: v.id,
      status: v.status,
      heldBy: v.reservation?.lockId ?? null,
      stepRuns: runs.filter((r) => r.id === v.id).length,
    }));
}

it('completes everything when the ensemble leader is SIGKILLed mid-run, never running a step on two live holders', async () => {
  const url = `${ensemble.url}/fate-ensemble-${randomUUID().slice(0, 8)}?sessionTimeout=${SESSION_MS}`;
  const dir = mkdtempSync(join(tmpdir(), 'fate-ensemble-'));
  const log = join(dir, 'steps.log');
  const children: ChildProcess[] = [];
  let store: FatesStore | undefined;
  try {
    store = await openStore(url);
    const client = store;
    for (const name of ['w1', 'w2', 'w3']) {
      children.push(await startEngineProcess(url, name, log, { livenessMs: LIVENESS_MS }));
    }
    const ids = await mapLimit(
      Array.from({ length: TXS }),
      32,
      async () => (await client.seed({ step: procStep(3, 20), opName: 'proc' })).id,
    );
    // mid-run: a good part done, most still to do
    await eventually(
      'a third of the steps ran',
      async () => existsSync(log) && readStepRuns(log).length > TXS,
      30_000,
    );
    const leader = await ensemble.leader();
    const killedAt = Date.now();
    await ensemble.kill(leader);
    const stepsAtKill = readStepRuns(log).filter((r) => r.start <= killedAt).length;
    expect(stepsAtKill, 'work was left when the leader died').toBeLessThan(3 * TXS);
    // The crashed server comes back after RESTART_AFTER_MS whether or not the other two have
    // a leader by then, as a supervised server would: two alone elect in under a second here,
    // but under a loaded CI machine their election once took 11 s and once over 20 s.
    await new Promise((r) => setTimeout(r, Math.max(0, killedAt + RESTART_AFTER_MS - Date.now())));
    await ensemble.restart(leader);
    const newLeader = await ensemble.leader(30_000);
    const electionMs = Date.now() - killedAt;

    // the test's own client rides the election too: a failed poll is retried until the deadline
    let done = 0;
    // the poll's failures, kept to say in the log line what this client saw (one CI run
    // saw its every poll fail for 30 s while the engines went on)
    const pollErrors = new Map<string, { count: number; firstMs: number; lastMs: number }>();
    // every poll, to say in the log line which were slow (one local run saw 0 of 300 done
    // for 30 s and only two polls fail: the others hung)
    const polls: Array<{ atMs: number; tookMs: number; done: number }> = [];
    const deadline = Date.now() + 30_000;
    while (done < TXS && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250)); // a list reads every record: poll gently
      const t0 = Date.now();
      done = await client.list({ statuses: [Status.SUCCESSFUL] }).then(
        (l) => l.length,
        (err: unknown) => {
          const key = String(err).slice(0, 160);
          const at = Date.now() - killedAt;
          const seen = pollErrors.get(key) ?? { count: 0, firstMs: at, lastMs: at };
          pollErrors.set(key, { ...seen, count: seen.count + 1, lastMs: at });
          return done;
        },
      );
      polls.push({ atMs: t0 - killedAt, tookMs: Date.now() - t0, done });
    }
    const runs = readStepRuns(log);
    const pause = largestPause(runs, killedAt - 1_000);
    console.log(
      `ZooKeeper ensemble: leader ${leader} SIGKILLed after ${stepsAtKill} of ${3 * TXS} steps; ` +
        `server ${newLeader} led ${electionMs} ms after it; the largest gap between step starts ` +
        `was ${pause.ms} ms, from ${pause.at - killedAt} ms after the kill; ` +
        `${runs.length - 3 * TXS} step re-runs; ${done} of ${TXS} finished; the test client's ` +
        `failed polls (ms after the kill): ${JSON.stringify([...pollErrors])}; its slowest polls: ` +
        JSON.stringify([...polls].sort((a, b) => b.tookMs - a.tookMs).slice(0, 5)),
    );
    expect(done === TXS ? [] : await unfinished(client, ids, log)).toEqual([]);
    expect(overlappingRuns(runs, Date.now())).toEqual([]);
    for (const id of ids) {
      const mine = runs.filter((r) => r.id === id);
      expect(new Set(mine.map((r) => r.n)), id).toEqual(new Set([1, 2, 3]));
    }
    // no engine crashed on the lost connection
    for (const c of children) expect([c.exitCode, c.signalCode]).toEqual([null, null]);
  } finally {
    await stopProcesses(children);
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 150_000); // the bounded waits above fail first, with what they saw
