import { checkUiOptions } from '@fate/cli';
import { Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { fate } from '../cli-harness.js';
import { TOKEN } from './ui-fixture.js';
import { send, useUiServer } from './ui-http.js';

// The console's server without a browser: security headers, refused requests, and the
// refusal to expose a store (hostile records and limits: ui-server.test.ts).

describe('fate ui server on sqlite', () => {
  const ui = useUiServer();
  const get = ui.get;

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
      (await send(`${ui.rig.ui.url}/`, { method: 'PUT', headers: { Cookie: ui.cookie } })).status,
    ).toBe(405);
    expect((await get('/tx?limit=100000')).status).toBe(400);
    expect((await get('/tx/not-an-id')).status).toBe(400);
    // without a session: the login page, and nothing else
    expect((await send(`${ui.rig.ui.url}/`)).status).toBe(303);
    expect((await send(`${ui.rig.ui.url}/?fragment=live`)).status).toBe(401);
  });

  it('refuses POSTs from another origin, without an origin, too large, or with a bad CSRF token', async () => {
    const id = await ui.rig.store.create();
    const post = (headers: Record<string, string>, body = 'csrf=x') =>
      send(`${ui.rig.ui.url}/tx/${id}/cancel`, {
        method: 'POST',
        headers: {
          Cookie: ui.cookie,
          'Content-Type': 'application/x-www-form-urlencoded',
          ...headers,
        },
        body,
      });
    expect((await post({ Origin: 'http://evil.example' })).status).toBe(403);
    expect((await post({})).status).toBe(403);
    expect((await post({ Origin: ui.rig.ui.url, 'Sec-Fetch-Site': 'same-site' })).status).toBe(403);
    expect((await post({ Origin: ui.rig.ui.url }, `csrf=${'x'.repeat(20_000)}`)).status).toBe(413);
    const bad = await post({ Origin: ui.rig.ui.url });
    expect(bad.status).toBe(403);
    expect(bad.body).toContain('CSRF');
    expect((await ui.rig.store.read(id)).status).toBe(Status.NEW);
    const wrong = await send(`${ui.rig.ui.url}/login`, {
      method: 'POST',
      headers: { Origin: ui.rig.ui.url, 'Content-Type': 'application/x-www-form-urlencoded' },
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
