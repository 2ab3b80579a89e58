import { Status } from '@fate/core';
import { afterAll, describe, expect, it } from 'vitest';
import { step, useAdminStore } from './admin-fixture.js';
import { BACKENDS, stopServices } from './cli-harness.js';

afterAll(stopServices);

describe.each(BACKENDS)('fate cancel on $name', (backend) => {
  const s = useAdminStore(backend);

  it('cancels NEW/SUBMITTED and refuses anything else at once, even while it is held', async () => {
    const { id } = await s.store.seed({ step: step('s'), opName: 'op' });
    const cancelled = await s.admin('cancel', id);
    expect(cancelled).toMatchObject({ code: 0, stderr: '' });
    expect(cancelled.stdout).toContain(`cancelled ${id}`);
    expect((await s.store.read(id)).status).toBe(Status.FAILED);

    const running = await s.store.seed({ step: step('s'), opName: 'op' });
    const h = await (await s.client()).reserve(running.id);
    await h.setStatus(Status.IN_PROGRESS);
    // held throughout: waiting for the reservation would end in FATE_TIMEOUT instead
    const refused = await s.admin('cancel', running.id);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `fate cancel: cannot cancel ${running.id}: it is IN_PROGRESS; only NEW and SUBMITTED transactions can be cancelled [FATE_ILLEGAL_STATUS]\n`,
    );
    expect((await s.store.read(running.id)).status).toBe(Status.IN_PROGRESS);
    const absent = await s.admin('cancel', '0f8fad5b-d9cb-469f-a165-70867728950e');
    expect([absent.code, absent.stderr]).toEqual([
      1,
      'fate cancel: no transaction 0f8fad5b-d9cb-469f-a165-70867728950e [FATE_NOT_FOUND]\n',
    ]);
  });
});
