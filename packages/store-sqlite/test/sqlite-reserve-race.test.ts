import { type FateId, newFateId, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { useSqlite, withRaw } from './sqlite-harness.js';

const t = useSqlite();

/**
 * Makes `statement` release `id` from another connection right after its first answer that
 * found nothing, as a holder's release landing between two statements would; `released()`
 * says whether it did.
 */
function releaseAfterFirstMiss<A, R>(
  statement: { get(args: A): R | undefined },
  id: FateId,
): { released(): boolean } {
  const first = statement.get.bind(statement);
  let released = false;
  statement.get = (args) => {
    const row = first(args);
    if (row === undefined && !released) {
      released = true;
      withRaw(t.fixture.file, (db) =>
        db.prepare('UPDATE transactions SET res_lock = NULL, res_uuid = NULL WHERE id = ?').run(id),
      );
    }
    return row;
  };
  return { released: () => released };
}

/** A SUBMITTED record held by an admin (reserving without start). */
async function heldByAdmin() {
  const backend = await t.backend();
  const id = newFateId();
  await backend.insert(id, { status: Status.SUBMITTED, stack: '[]', info: '{}', op: 'op' });
  expect(await backend.tryReserve(id, { lockId: 'admin@1', uuid: 'a1' })).toMatchObject({
    status: Status.SUBMITTED,
  });
  return { backend, id };
}

const engine = { lockId: 'engine@1', uuid: 'e1' };

describe('sqlite backend: tryReserve against another process', () => {
  it('a SUBMITTED record released between its two statements is stored IN_PROGRESS when answered as started', async () => {
    // An engine reserves the admin's record to run. Its first statement finds it held; the
    // admin's release, from another process, lands before the second statement, which then
    // takes it as it is: SUBMITTED.
    const { backend, id } = await heldByAdmin();
    const race = releaseAfterFirstMiss(backend.statements.reserveToRun, id);
    const answer = await backend.tryReserve(id, engine, true);
    expect(race.released(), 'the release landed between the statements').toBe(true);
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
    // The reserve statement finds the record held; the release, from another process, lands
    // before the holder read, which finds it free: the reserve is tried again and takes it.
    const { backend, id } = await heldByAdmin();
    const race = releaseAfterFirstMiss(backend.statements.reserve, id);
    const answer = await backend.tryReserve(id, engine);
    expect(race.released(), 'the release landed between the statements').toBe(true);
    expect(answer).toMatchObject({ reservation: engine, status: Status.SUBMITTED });
    expect((await backend.read(id))?.reservation).toEqual(engine);
  });
});
