import { newFateId, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { useSqlite, withRaw } from './sqlite-harness.js';

const t = useSqlite();

describe('sqlite backend: tryReserve against another process', () => {
  it('a SUBMITTED record released between its two statements is stored IN_PROGRESS when answered as started', async () => {
    // An admin (reserving without start) holds the SUBMITTED record; an engine reserves it
    // to run. Its first statement finds it held; the admin's release, from another process,
    // lands before the second statement, which then takes it as it is: SUBMITTED.
    const backend = await t.backend();
    const id = newFateId();
    await backend.insert(id, { status: Status.SUBMITTED, stack: '[]', info: '{}', op: 'op' });
    const admin = { lockId: 'admin@1', uuid: 'a1' };
    expect(await backend.tryReserve(id, admin)).toMatchObject({ status: Status.SUBMITTED });
    const toRun = backend.statements.reserveToRun;
    const first = toRun.get.bind(toRun);
    let released = false;
    toRun.get = (args) => {
      const row = first(args);
      if (row === undefined && !released) {
        released = true;
        withRaw(t.fixture.file, (db) =>
          db
            .prepare('UPDATE transactions SET res_lock = NULL, res_uuid = NULL WHERE id = ?')
            .run(id),
        );
      }
      return row;
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

  it('a record released between the reserve and the holder read is taken, not answered as held', async () => {
    // The reserve statement finds the record held; the holder's release, from another
    // process, lands before the holder read, which then finds it free: the reserve is
    // tried again and takes it.
    const backend = await t.backend();
    const id = newFateId();
    await backend.insert(id, { status: Status.SUBMITTED, stack: '[]', info: '{}', op: 'op' });
    expect(await backend.tryReserve(id, { lockId: 'admin@1', uuid: 'a1' })).not.toBe('held');
    const reserve = backend.statements.reserve;
    const first = reserve.get.bind(reserve);
    let released = false;
    reserve.get = (args) => {
      const row = first(args);
      if (row === undefined && !released) {
        released = true;
        withRaw(t.fixture.file, (db) =>
          db
            .prepare('UPDATE transactions SET res_lock = NULL, res_uuid = NULL WHERE id = ?')
            .run(id),
        );
      }
      return row;
    };
    const engine = { lockId: 'engine@1', uuid: 'e1' };
    const answer = await backend.tryReserve(id, engine);
    expect(released, 'the release landed between the statements').toBe(true);
    expect(answer).toMatchObject({ reservation: engine, status: Status.SUBMITTED });
    expect((await backend.read(id))?.reservation).toEqual(engine);
  });
});
