import { openClient } from '@fate/conformance';
import { type FateId, type FatesStore, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { send, useUiServer } from './ui-http.js';

// The list page's filters the store does not apply alone (a holder's liveness, deferral, age)
// and a force-delete run through the console, on SQLite without an engine.

const step = { type: 'gate', state: null };

/** The ids of the rows of a list page, in order. */
const idsOf = (body: string) => [...body.matchAll(/<tr data-id="([^"]+)"/g)].map((m) => m[1]);

describe('fate ui list filters on sqlite', () => {
  const ui = useUiServer();
  const list = async (query: string) => {
    const res = await ui.get(`/tx?${query}&fragment=live`);
    expect(res.status).toBe(200);
    return idsOf(res.body).sort();
  };

  it('holder live, dead and none: by whether the reservation has a current liveness record', async () => {
    const free = (await ui.rig.store.seed({ step, opName: 'free' })).id;
    const held = (await ui.rig.store.seed({ step, opName: 'held' })).id;
    const orphan = (await ui.rig.store.seed({ step, opName: 'orphan' })).id;
    // one client that heartbeats (live), one that never registered (no liveness record: dead)
    await ui.rig.store.registerInstance({ group: '*' });
    await ui.rig.store.reserve(held as FateId, { timeoutMs: 5_000 });
    const silent: FatesStore = await openClient(ui.fixture);
    try {
      await silent.reserve(orphan as FateId, { timeoutMs: 5_000 });
      expect(await list('holder=live')).toEqual([held]);
      expect(await list('holder=dead')).toEqual([orphan]);
      expect(await list('holder=none')).toEqual([free]);
      expect(await list('holder=any')).toEqual([free, held, orphan].sort());
      expect((await ui.get('/tx?holder=maybe')).status).toBe(400);
    } finally {
      await silent.close();
    }
  });

  it('deferred yes and no: by the deferral against the store clock', async () => {
    const later = (await ui.rig.store.seed({ step, opName: 'later', delayMs: 600_000 })).id;
    const now = (await ui.rig.store.seed({ step, opName: 'now' })).id;
    expect(await list('deferred=yes')).toEqual([later]);
    expect(await list('deferred=no')).toEqual([now]);
    const page = await ui.get(`/tx?deferred=yes&fragment=live`);
    expect(page.body).toMatch(/<td>in (9|10) min[^<]*<\/td>/);
  });

  it('older than: by the creation time in the record, against the store clock', async () => {
    const old = (await ui.rig.store.seed({ step, opName: 'old' })).id;
    const fresh = (await ui.rig.store.seed({ step, opName: 'fresh' })).id;
    const h = await ui.rig.store.reserve(old as FateId, { timeoutMs: 5_000 });
    const twoHours = ui.rig.store.now() - 2 * 3_600_000;
    await h.commit([{ op: 'setInfo', key: 'created', value: twoHours }, { op: 'unreserve' }]);
    expect(await list('age=1+h')).toEqual([old]);
    expect(await list('age=1+d')).toEqual([]);
    expect(await list('age=any')).toEqual([old, fresh].sort());
  });

  it('force-deletes a corrupt record with the token and the CSRF token, and logs it', async () => {
    const id = (await ui.rig.store.create()) as FateId;
    const kept = (await ui.rig.store.create()) as FateId;
    await ui.fixture.corrupt(id, 'status');
    expect(await list('status=CORRUPT')).toEqual([id]);
    const confirm = await ui.get(`/tx/${id}/force-delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain('Its record is corrupt.');
    const csrf = /name="csrf" value="([^"]+)"/.exec(confirm.body)?.[1];
    expect(csrf).toBeDefined();
    const done = await send(`${ui.rig.ui.url}/tx/${id}/force-delete`, {
      method: 'POST',
      headers: {
        Cookie: ui.cookie,
        Origin: ui.rig.ui.url,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: `csrf=${encodeURIComponent(csrf as string)}`,
    });
    expect(done.status).toBe(200);
    expect((await ui.rig.store.read(id)).status).toBe(Status.UNKNOWN);
    expect((await ui.rig.store.read(kept)).status).toBe(Status.NEW);
    expect(await list('status=CORRUPT')).toEqual([]);
    expect((await ui.get(`/tx/${id}`)).status).toBe(404);
    expect(ui.rig.logs.some((l) => l.startsWith(`force-delete ${id}: `))).toBe(true);
  });
});
