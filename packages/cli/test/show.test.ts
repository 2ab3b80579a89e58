import { Status } from '@fate/core';
import { afterAll, describe, expect, it } from 'vitest';
import { failedAndUndone, step, useAdminStore } from './admin-fixture.js';
import { BACKENDS, stopServices } from './cli-harness.js';

afterAll(stopServices);

describe.each(BACKENDS)('fate show on $name', (backend) => {
  const s = useAdminStore(backend);

  it('shows a failed, rolled-back transaction: error, undo errors, empty stack; as JSON too', async () => {
    const id = await failedAndUndone(s.store);
    const text = await s.admin('show', id.toUpperCase());
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toBe(`id            ${id}`);
    expect(lines[1]).toMatch(
      /^status {8}FAILED \(no status-change time is stored; created (\d+ ms|[\d.]+ s) ago\)$/,
    );
    expect(text.stdout).toContain('\nop            order\n');
    expect(text.stdout).toContain('\npriority      0 (the default)\n');
    expect(text.stdout).toContain('\nholder        none\n');
    expect(text.stdout).toContain('\ndeferred      no\n');
    expect(text.stdout).toContain('\nstack         empty\n');
    expect(text.stdout).toContain('\nerror         Error: card declined\n');
    expect(text.stdout).toMatch(/\n {16}at ChargeCard\.call /);
    expect(text.stdout).toContain(
      '\nundo errors   1, oldest first:\n  1.          Error: stock service down: release sku-42 by hand\n',
    );
    expect(text.stdout).toMatch(/\nreturn value {2}none\n$/);

    const parsed = JSON.parse((await s.admin('show', id, '--json')).stdout);
    expect(parsed).toMatchObject({
      id,
      status: 'FAILED',
      opName: 'order',
      priority: 0,
      holder: null,
      deferredUntil: null,
      stack: [],
      error: {
        name: 'Error',
        message: 'card declined',
        undoErrors: [{ message: 'stock service down: release sku-42 by hand' }],
      },
    });
    expect(parsed.error.stack).toContain('at ChargeCard.call');
    expect(parsed.created).toBeTypeOf('number');
    expect(parsed).not.toHaveProperty('returnValue');
  });

  it('shows a running transaction: steps newest first, a live or dead holder, a deferral', async () => {
    const holder = await s.client({ instanceId: 'admin-test-holder', livenessTimeoutMs: 60_000 });
    await holder.registerInstance();
    const { id } = await s.store.seed({
      step: step('reserve-stock', { sku: 'a' }),
      opName: 'order',
    });
    const h = await holder.reserve(id);
    await h.commit([
      { op: 'setStatus', status: Status.IN_PROGRESS },
      { op: 'push', step: step('charge-card', { amount: 3 }) },
    ]);
    const live = await s.admin('show', id);
    expect(live.stdout).toMatch(
      new RegExp(
        `\\nholder {8}admin-test-holder@[0-9a-f]+ \\(live, heartbeat [\\d.]+ m?s ago\\), reservation ${h.reservation.uuid}\\n`,
      ),
    );
    expect(live.stdout).toContain(
      '\nstack         2 steps, newest first:\n  2.  charge-card    {"amount":3}\n  1.  reserve-stock  {"sku":"a"}\n',
    );
    const json = JSON.parse((await s.admin('show', id, '--json')).stdout);
    expect(json.holder).toEqual({ ...h.reservation, alive: true });
    expect(json.stack).toEqual([
      step('charge-card', { amount: 3 }),
      step('reserve-stock', { sku: 'a' }),
    ]);

    await h.unreserve(60_000);
    const unregistered = await s.client({ instanceId: 'admin-test-gone' });
    const other = await s.store.seed({ step: step('x'), opName: 'order', priority: 3 });
    await unregistered.reserve(other.id);
    const deferred = await s.admin('show', id);
    expect(deferred.stdout).toMatch(
      /\ndeferred {6}until \d{4}-\d\d-\d\dT[\d:.]+Z \(in [\d.]+ s\)\n/,
    );
    expect(deferred.stdout).toContain('\nholder        none\n');
    // a client that never registered: no liveness record at all
    expect((await s.admin('show', other.id)).stdout).toMatch(
      /admin-test-gone@[0-9a-f]+ \(no liveness record\)/,
    );

    const list = await s.admin('list');
    expect(list.code).toBe(0);
    const [header, ...rows] = list.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^id +status +op +prio +top step +holder +deferred +age$/);
    expect(rows.find((r) => r.startsWith(id))).toMatch(
      /IN_PROGRESS +order +0 +charge-card +- +in [\d.]+ s +[\d.]+ m?s$/,
    );
    expect(rows.find((r) => r.startsWith(other.id))).toMatch(
      /SUBMITTED +order +3 +x +admin-test-gone@[0-9a-f]+ \(no liveness record\) +- +[\d.]+ m?s$/,
    );
    expect(rows.at(-1)).toBe('2 transactions');
    const listed = JSON.parse((await s.admin('list', '--json')).stdout);
    expect(listed.find((r: { id: string }) => r.id === other.id)).toMatchObject({
      status: 'SUBMITTED',
      priority: 3,
      reservation: { lockId: unregistered.lockId },
      holderAlive: false,
    });
  });
});
