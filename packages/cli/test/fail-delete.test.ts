import { Status } from '@fate/core';
import { afterAll, describe, expect, it } from 'vitest';
import { failedAndUndone, step, useAdminStore } from './admin-fixture.js';
import { BACKENDS, stopServices } from './cli-harness.js';

afterAll(stopServices);

describe.each(BACKENDS)('fate fail and delete on $name', (backend) => {
  const s = useAdminStore(backend);

  it('fails and deletes, refusing what the status forbids; --force deletes in any status', async () => {
    const { id } = await s.store.seed({ step: step('s'), opName: 'op' });
    const failed = await s.admin('fail', id);
    expect(failed.stdout).toContain(`${id} is FAILED_IN_PROGRESS: an engine will undo its 1 step`);
    expect((await s.store.read(id)).info.error).toMatchObject({ name: 'AdminFailure' });
    const refused = await s.admin('delete', id);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `cannot delete ${id}: it is FAILED_IN_PROGRESS (only NEW, SUBMITTED, SUCCESSFUL, FAILED; --force deletes in any status) [FATE_ILLEGAL_STATUS]`,
    );
    expect(await s.admin('delete', id, '--force')).toMatchObject({
      code: 0,
      stdout: `deleted ${id}\n`,
    });
    expect((await s.store.read(id)).status).toBe(Status.UNKNOWN);

    const done = await failedAndUndone(s.store);
    const again = await s.admin('fail', done);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `cannot fail ${done}: it is FAILED (only NEW, SUBMITTED, IN_PROGRESS, FAILED_IN_PROGRESS) [FATE_ILLEGAL_STATUS]`,
    );
    expect(await s.admin('delete', done)).toMatchObject({ code: 0, stdout: `deleted ${done}\n` });
    const gone = await s.admin('delete', done, '--force');
    expect([gone.code, gone.stderr]).toEqual([1, expect.stringContaining('[FATE_NOT_FOUND]')]);
  });

  it('clears a dead holder at once for fail and delete, and names a live one', async () => {
    // a holder that died: registered, reserved, then never a heartbeat again
    const dead = await s.client({ instanceId: 'admin-test-dead', livenessTimeoutMs: 500 });
    await dead.registerInstance();
    const { id } = await s.store.seed({ step: step('s'), opName: 'op' });
    await dead.reserve(id);
    const started = performance.now();
    const failed = await s.admin('fail', id);
    expect(failed.stdout).toContain(`${id} is FAILED_IN_PROGRESS`);
    // watched for its 0.5 s timeout (plus a process start), not the 10 s wait
    expect(performance.now() - started).toBeLessThan(8_000);
    const doomed = await s.store.seed({ step: step('s'), opName: 'op' });
    await dead.reserve(doomed.id);
    expect(await s.admin('delete', doomed.id, '--force')).toMatchObject({ code: 0 });

    // a live holder is waited for, then named
    const live = await s.client({ instanceId: 'admin-test-live', livenessTimeoutMs: 1_000 });
    await live.registerInstance();
    const beating = setInterval(() => void live.heartbeat().catch(() => undefined), 200);
    try {
      const held = await s.store.seed({ step: step('s'), opName: 'op' });
      await live.reserve(held.id);
      const refused = await s.admin('delete', held.id, '--wait', '2');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /stayed held by admin-test-live@[0-9a-f]+ \(live, heartbeat [\d.]+ m?s ago\) for 2\.0 s.*\[FATE_TIMEOUT\]/,
      );
      expect((await s.store.read(held.id)).reservation?.lockId).toBe(live.lockId);
      const bad = await s.admin('delete', held.id, '--wait', 'soon');
      expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('--wait must be')]);
    } finally {
      clearInterval(beating);
    }
  });
});
