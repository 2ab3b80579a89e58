import { request } from 'node:http';
import { checkUiOptions } from '@fate/cli';
import type { StoreFixture } from '@fate/conformance';
import { type FateId, type JsonValue, Status } from '@fate/core';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKENDS, fate } from '../cli-harness.js';
import { type Rig, startRig, TOKEN } from './ui-fixture.js';

// The console's server without a browser: hostile records, limits, headers and refusals.

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One HTTP request with any headers (Host and Origin too), bounded by 10 s. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, timeout: 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within 10 s`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The session cookie of a login with the token. */
async function logIn(base: string): Promise<string> {
  const res = await send(`${base}/login`, {
    method: 'POST',
    headers: { Origin: base, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `token=${TOKEN}`,
  });
  expect(res.status).toBe(303);
  const cookie = String(res.headers['set-cookie']);
  expect(cookie).toMatch(/HttpOnly/i);
  expect(cookie).toMatch(/SameSite=Strict/i);
  return cookie.split(';')[0] as string;
}

/** Nested arrays `depth` deep. */
function nested(depth: number): JsonValue {
  let v: JsonValue = 'bottom';
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

describe('fate ui server on sqlite', () => {
  const sqlite = BACKENDS[0] as (typeof BACKENDS)[number];
  let fixture: StoreFixture & { readonly url: string; readonly file: string };
  let rig: Rig;
  let cookie: string;
  const get = (path: string, headers: Record<string, string> = {}) =>
    send(`${rig.ui.url}${path}`, { headers: { Cookie: cookie, ...headers } });

  beforeEach(async () => {
    fixture = (await sqlite.fixture()) as typeof fixture;
    rig = await startRig(fixture, { engine: false });
    cookie = await logIn(rig.ui.url);
  });
  afterEach(async () => {
    await rig?.stop();
    await fixture?.destroy();
  });

  it('shows a record that cannot be decoded as corrupt on every page, and offers only a force-delete', async () => {
    const id = await rig.store.create();
    const other = await rig.store.create();
    await fixture.corrupt(id, 'status');
    await fixture.corrupt(other, 'info');
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

  it("shows each engine's pools as its last heartbeat wrote them, escaped", async () => {
    await rig.store.registerInstance({
      group: '*',
      load: () => [{ name: 'fast<b>', workers: 4, busy: 1, idle: 3, queued: 7 }],
    });
    const overview = await get('/?fragment=live');
    expect(overview.status).toBe(200);
    expect(overview.body).toContain('fast&lt;b&gt; 1 / 3 / 7');
    expect(overview.body).not.toContain('fast<b>');
  });

  it('clips a 1 MB error text and a deeply nested step state, and stays up', async () => {
    const { id } = await rig.store.seed({
      step: { type: 'deep', state: nested(50) },
      opName: 'big',
    });
    const fate = await rig.store.reserve(id as FateId, { timeoutMs: 5_000 });
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
    const { id } = await rig.store.seed({ step: { type: 'deep', state: null }, opName: 'deep' });
    const deep = `[{"type":"deep","state":${'['.repeat(100_000)}${']'.repeat(100_000)}}]`;
    const raw = new Database(fixture.file, { timeout: 5_000 });
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

  it('sends the security headers and refuses what no page needs', async () => {
    const page = await get('/');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body).not.toMatch(/<script>|<style>| on\w+=/);
    expect((await get(`/tx?op=${'a'.repeat(5_000)}`)).status).toBe(414);
    expect((await get('/', { Host: 'evil.example:80' })).status).toBe(421);
    expect(
      (await send(`${rig.ui.url}/`, { method: 'PUT', headers: { Cookie: cookie } })).status,
    ).toBe(405);
    expect((await get('/tx?limit=100000')).status).toBe(400);
    expect((await get('/tx/not-an-id')).status).toBe(400);
    // without a session: the login page, and nothing else
    expect((await send(`${rig.ui.url}/`)).status).toBe(303);
    expect((await send(`${rig.ui.url}/?fragment=live`)).status).toBe(401);
  });

  it('refuses POSTs from another origin, without an origin, too large, or with a bad CSRF token', async () => {
    const id = await rig.store.create();
    const post = (headers: Record<string, string>, body = 'csrf=x') =>
      send(`${rig.ui.url}/tx/${id}/cancel`, {
        method: 'POST',
        headers: {
          Cookie: cookie,
          'Content-Type': 'application/x-www-form-urlencoded',
          ...headers,
        },
        body,
      });
    expect((await post({ Origin: 'http://evil.example' })).status).toBe(403);
    expect((await post({})).status).toBe(403);
    expect((await post({ Origin: rig.ui.url, 'Sec-Fetch-Site': 'same-site' })).status).toBe(403);
    expect((await post({ Origin: rig.ui.url }, `csrf=${'x'.repeat(20_000)}`)).status).toBe(413);
    const bad = await post({ Origin: rig.ui.url });
    expect(bad.status).toBe(403);
    expect(bad.body).toContain('CSRF');
    expect((await rig.store.read(id)).status).toBe(Status.NEW);
    const wrong = await send(`${rig.ui.url}/login`, {
      method: 'POST',
      headers: { Origin: rig.ui.url, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'token=wrong-token-0123456789',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });
});

describe('fate ui refuses to expose a store', () => {
  it('without a token on a host other than loopback, or with actions', () => {
    expect(() => checkUiOptions('0.0.0.0', undefined, false)).toThrow(
      expect.objectContaining({ code: 'FATE_UI_UNSAFE' }),
    );
    expect(() => checkUiOptions('127.0.0.1', undefined, true)).toThrow(
      expect.objectContaining({ code: 'FATE_UI_UNSAFE' }),
    );
    expect(() => checkUiOptions('0.0.0.0', 'short', false)).toThrow(
      expect.objectContaining({ code: 'FATE_UI_UNSAFE' }),
    );
    expect(() => checkUiOptions('0.0.0.0', TOKEN, true)).not.toThrow();
    expect(() => checkUiOptions('localhost', undefined, false)).not.toThrow();
  });

  it('fate ui --host 0.0.0.0 without a token exits 1 with the reason, before opening the store', async () => {
    const run = await fate(['ui', '--host', '0.0.0.0', '--store', 'sqlite:/nonexistent/dir/x.db']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('refusing to serve on 0.0.0.0 without a token');
    expect(run.stderr).toContain('[FATE_UI_UNSAFE]');
    const actions = await fate([
      'ui',
      '--allow-actions',
      '--store',
      'sqlite:/nonexistent/dir/x.db',
    ]);
    expect(actions.code).toBe(1);
    expect(actions.stderr).toContain('--allow-actions needs a token');
  });
});
