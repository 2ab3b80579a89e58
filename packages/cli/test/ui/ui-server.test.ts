import type { FateId, JsonValue } from '@fate/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { fate } from '../cli-harness.js';
import { useUiServer } from './ui-http.js';

// The console's server without a browser: hostile records and limits (headers and refusals:
// ui-security.test.ts).

/** Nested arrays `depth` deep. */
function nested(depth: number): JsonValue {
  let v: JsonValue = 'bottom';
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

describe('fate ui server on sqlite', () => {
  const ui = useUiServer();
  const get = ui.get;

  it('shows a record that cannot be decoded as corrupt on every page, and offers only a force-delete', async () => {
    const id = await ui.rig.store.create();
    const other = await ui.rig.store.create();
    await ui.fixture.corrupt(id, 'status');
    await ui.fixture.corrupt(other, 'info');
    const page = await get(`/tx/${id}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('corrupt:');
    expect(page.body).toContain(`/tx/${id}/force-delete`);
    expect(page.body).not.toContain(`/tx/${id}/cancel`);
    expect((await get(`/tx/${other}`)).body).toContain('corrupt:');
    const list = await get('/tx?status=CORRUPT');
    expect(list.status).toBe(200);
    expect(list.body.match(/<tr data-id=/g)).toHaveLength(2);
    const overview = await get('/?fragment=live');
    expect(overview.status).toBe(200);
    expect(overview.body).toMatch(/data-status="CORRUPT">1</);
  });

  it("shows a retried step's attempts, last errors and next attempt as fate show does, and marks fate's own records in the list", async () => {
    const { id } = await ui.rig.store.seed({
      step: { type: 'call-api', state: {} },
      opName: 'sync',
    });
    const h = await ui.rig.store.reserve(id as FateId, { timeoutMs: 5_000 });
    const errors = [
      { name: 'Error', code: 'E503', message: '503 <from> the API' },
      { name: 'TypeError', message: 'bad gateway' },
    ];
    await h.commit([
      {
        op: 'setInfo',
        key: 'retry',
        value: { depth: 1, type: 'call-api', attempts: 2, maxAttempts: 5, errors },
      },
      { op: 'unreserve', deferMs: 600_000 },
    ]);
    const { id: own } = await ui.rig.store.seed({
      held: true,
      key: { type: 'fate:schedule', key: 'nightly' },
      opName: 'fate:schedule',
      step: { type: 'fate:schedule', state: { name: 'nightly' } },
      internal: {
        kind: 'schedule',
        name: 'nightly',
        pattern: '0 3 * * *',
        through: 0,
        pending: [],
      },
    });
    const page = await get(`/tx/${id}?fragment=live`);
    expect(page.status).toBe(200);
    expect(page.body).toMatch(
      /step 1 \(call-api\): 2 of 5 attempts failed; next attempt in (9|10) min/,
    );
    expect(page.body).toContain('<li>Error [E503]: 503 &lt;from&gt; the API</li>');
    expect(page.body).toContain('<li>TypeError: bad gateway</li>');
    const text = await fate(['show', id, '--store', ui.fixture.url]);
    expect(text.stdout).toContain('step 1 (call-api): 2 of 5 attempts failed; last 2 errors');
    const ownPage = await get(`/tx/${own}?fragment=live`);
    expect(ownPage.body).toContain('fate record');
    expect(ownPage.body).toContain('due times judged through 1970-01-01T00:00:00.000Z');
    const list = await get('/tx?fragment=live');
    const rowOf = (x: string) => list.body.split('<tr ').find((r) => r.includes(`data-id="${x}"`));
    expect(rowOf(own)).toMatch(
      /fate:schedule <span class="internal" data-internal[^>]*>fate record</,
    );
    expect(rowOf(id)).not.toContain('data-internal');
  });

  it('shows the priority with the text of fate show (priorityText)', async () => {
    const { id: urgent } = await ui.rig.store.seed({
      step: { type: 's', state: null },
      opName: 'a',
      priority: 3,
    });
    const { id: plain } = await ui.rig.store.seed({
      step: { type: 's', state: null },
      opName: 'b',
    });
    expect((await get(`/tx/${urgent}?fragment=live`)).body).toContain(
      '<tr><th>priority</th><td>3</td></tr>',
    );
    expect((await get(`/tx/${plain}?fragment=live`)).body).toContain(
      '<tr><th>priority</th><td>0 (the default)</td></tr>',
    );
  });

  it("shows each engine's pools as its last heartbeat wrote them, escaped", async () => {
    await ui.rig.store.registerInstance({
      group: '*',
      load: () => [{ name: 'fast<b>', workers: 4, busy: 1, idle: 3, queued: 7 }],
    });
    const overview = await get('/?fragment=live');
    expect(overview.status).toBe(200);
    expect(overview.body).toContain('fast&lt;b&gt; 1 / 3 / 7');
    expect(overview.body).not.toContain('fast<b>');
  });

  it('clips a 1 MB error text and a deeply nested step state, and stays up', async () => {
    const { id } = await ui.rig.store.seed({
      step: { type: 'deep', state: nested(50) },
      opName: 'big',
    });
    const fate = await ui.rig.store.reserve(id as FateId, { timeoutMs: 5_000 });
    const message = `${'<b>'.repeat(10)}${'x'.repeat(1 << 20)}`;
    await fate.commit([
      {
        op: 'setInfo',
        key: 'error',
        value: { message, name: 'Huge', stack: `Huge\n${'    at f (x.js:1:1)\n'.repeat(50_000)}` },
      },
      { op: 'unreserve' },
    ]);
    const page = await get(`/tx/${id}`);
    expect(page.status).toBe(200);
    expect(page.body.length).toBeLessThan(50_000);
    expect(page.body).toContain('more characters');
    expect(page.body).toContain('[…]');
    expect(page.body).toContain('&lt;b&gt;');
    expect(page.body).toContain('49995 more frames');
    expect((await get('/tx')).status).toBe(200);
    expect((await get('/')).status).toBe(200);
  });

  it("answers for a stack nested 100,000 deep written behind the store's back, and stays up", async () => {
    const { id } = await ui.rig.store.seed({ step: { type: 'deep', state: null }, opName: 'deep' });
    const deep = `[{"type":"deep","state":${'['.repeat(100_000)}${']'.repeat(100_000)}}]`;
    const raw = new Database(ui.fixture.file, { timeout: 5_000 });
    try {
      raw.prepare('UPDATE transactions SET stack = ? WHERE id = ?').run(deep, id);
    } finally {
      raw.close();
    }
    const page = await get(`/tx/${id}`);
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/corrupt:|\[…\]/);
    expect((await get('/tx?op=deep')).status).toBe(200);
    expect((await get('/')).status).toBe(200);
  });
});
