import { newFateId, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { usePostgres } from './postgres-harness.js';

const t = usePostgres();

describe('postgres backend: tryReserve with start against another client', () => {
  it('a SUBMITTED record released between its two statements is stored IN_PROGRESS when answered as started', async () => {
    // An admin (reserving without start) holds the SUBMITTED record; an engine reserves it
    // to run. Its first statement finds it held; the admin's release lands before the
    // second statement, which then takes it as it is: SUBMITTED.
    const backend = await t.backend();
    const id = newFateId();
    await backend.insert(id, { status: Status.SUBMITTED, stack: '[]', info: '{}', op: 'op' });
    const admin = { lockId: 'admin@1', uuid: 'a1' };
    expect(await backend.tryReserve(id, admin)).toMatchObject({ status: Status.SUBMITTED });
    const toRun = backend.statements.reserveToRun;
    const first = toRun.rows.bind(toRun);
    let released = false;
    toRun.rows = async (pool, args) => {
      const rows = await first(pool, args);
      if (rows.length === 0 && !released) {
        released = true;
        await t.sql((c) =>
          c.query(
            `UPDATE ${t.schema}.transactions SET res_lock = NULL, res_uuid = NULL WHERE id = $1`,
            [id],
          ),
        );
      }
      return rows;
    };
    const engine = { lockId: 'engine@1', uuid: 'e1' };
    const answer = await backend.tryReserve(id, engine, true);
    expect(released, 'the release landed between the statements').toBe(true);
    expect(answer).toMatchObject({ reservation: engine });
    const stored = await backend.read(id);
    expect(stored?.reservation).toEqual(engine);
    // Answered SUBMITTED means "this reservation started it": the store must say IN_PROGRESS,
    // or a step that runs from here leaves it SUBMITTED, and cancel or delete would apply.
    if (answer !== 'absent' && answer !== 'held' && answer.status === Status.SUBMITTED) {
      expect(stored?.status).toBe(Status.IN_PROGRESS);
    } else {
      expect(answer).toMatchObject({ status: stored?.status });
    }
  });
});
