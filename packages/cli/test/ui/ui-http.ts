import { request } from 'node:http';
import type { StoreFixture } from '@fate/conformance';
import { afterEach, beforeEach, expect } from 'vitest';
import { BACKENDS } from '../cli-harness.js';
import { type Rig, startRig, TOKEN } from './ui-fixture.js';

// Plain HTTP to the console's server, for the tests without a browser.

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One HTTP request with any headers (Host and Origin too), bounded by 10 s. */
export function send(
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
export async function logIn(base: string): Promise<string> {
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

/**
 * The console's server on a fresh SQLite store for each test, logged in (no engine): its
 * fixture, rig and session cookie, and `get`, a GET with that cookie.
 */
export function useUiServer() {
  const sqlite = BACKENDS[0] as (typeof BACKENDS)[number];
  const ui = {
    fixture: undefined as unknown as StoreFixture & { readonly url: string; readonly file: string },
    rig: undefined as unknown as Rig,
    cookie: '',
    get: (path: string, headers: Record<string, string> = {}) =>
      send(`${ui.rig.ui.url}${path}`, { headers: { Cookie: ui.cookie, ...headers } }),
  };
  beforeEach(async () => {
    ui.fixture = (await sqlite.fixture()) as typeof ui.fixture;
    ui.rig = await startRig(ui.fixture, { engine: false });
    ui.cookie = await logIn(ui.rig.ui.url);
  });
  afterEach(async () => {
    await ui.rig?.stop();
    await ui.fixture?.destroy();
  });
  return ui;
}
