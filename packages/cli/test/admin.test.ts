import { runAdmin } from '@fate/cli';
import { type FatesStore, openStore, Status } from '@fate/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

describe('fate admin', () => {
  let store: FatesStore;
  beforeEach(async () => {
    store = await openStore('memory:');
  });
  afterEach(() => store.close());

  const seed = (opName: string) => store.seed({ step: { type: 'x', state: null }, opName });

  it('lists with status and op filters, as text and JSON', async () => {
    const a = await seed('compact');
    await seed('merge');
    const text = await runAdmin(store, {
      action: 'list',
      statuses: ['submitted'],
      opName: 'compact',
    });
    expect(text).toContain(a.id);
    expect(text).toContain('1 transactions');
    const rows = JSON.parse(await runAdmin(store, { action: 'list', json: true }));
    expect(rows).toHaveLength(2);
    await expect(runAdmin(store, { action: 'list', statuses: ['bogus'] })).rejects.toThrow(
      TypeError,
    );
  });

  it('summarises by status and op', async () => {
    await seed('compact');
    await seed('compact');
    const json = JSON.parse(await runAdmin(store, { action: 'summary', json: true }));
    expect(json).toMatchObject({
      total: 2,
      byStatus: { SUBMITTED: 2 },
      byOp: { compact: { SUBMITTED: 2 } },
    });
    expect(await runAdmin(store, { action: 'summary' })).toContain('2 transactions');
  });

  it('cancels, fails and deletes, refusing what the status forbids', async () => {
    const a = await seed('op');
    expect(await runAdmin(store, { action: 'cancel', id: a.id })).toContain('cancelled');
    expect((await store.read(a.id)).status).toBe(Status.FAILED);
    await expect(runAdmin(store, { action: 'cancel', id: a.id })).rejects.toMatchObject({
      code: 'FATE_ILLEGAL_STATUS',
    });
    await expect(runAdmin(store, { action: 'fail', id: a.id })).rejects.toMatchObject({
      code: 'FATE_ILLEGAL_STATUS',
    });
    const b = await seed('op');
    await runAdmin(store, { action: 'fail', id: b.id });
    expect((await store.read(b.id)).status).toBe(Status.FAILED_IN_PROGRESS);
    await expect(runAdmin(store, { action: 'delete', id: b.id })).rejects.toMatchObject({
      code: 'FATE_ILLEGAL_STATUS',
    });
    await runAdmin(store, { action: 'delete', id: b.id, force: true });
    expect((await store.read(b.id)).status).toBe(Status.UNKNOWN);
    await runAdmin(store, { action: 'delete', id: a.id });
    expect(await store.list()).toEqual([]);
    await expect(runAdmin(store, { action: 'cancel', id: 'nope' })).rejects.toThrow(TypeError);
  });
});
