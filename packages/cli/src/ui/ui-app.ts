import { readFileSync } from 'node:fs';
import { type FateId, isFateError, isFateId } from '@fate/core';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { actionNamed } from './actions.js';
import { html } from './html.js';
import { actionsBlock, confirmPage, loginPage, runActionPage } from './pages/forms.js';
import { type Frame, Html, layout, live, notice } from './pages/layout.js';
import { overview } from './pages/overview.js';
import { BadQuery, listForm, listParams, txList } from './pages/tx-list.js';
import { readTx, txDetails } from './pages/tx-page.js';
import { SESSION_COOKIE, SESSION_MS } from './ui-auth.js';
import type { UiContext } from './ui-context.js';
import { guard, MAX_BODY, refuse, sameOrigin } from './ui-security.js';

const ASSETS: Readonly<Record<string, string>> = {
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
};
/** The asset files, read once: `assets/` beside `src/` and `dist/`. */
const assetText = (name: string) =>
  readFileSync(new URL(`../../assets/${name}`, import.meta.url), 'utf8');

/** The console's HTTP answers (a Hono app): pages, the live parts, login and the actions. */
export function createUiApp(ctx: UiContext, bindHost: string): Hono {
  const app = new Hono();
  const assets = new Map(Object.keys(ASSETS).map((n) => [n, assetText(n)]));
  const session = (c: Context) => getCookie(c, SESSION_COOKIE);
  const frame = (c: Context, title: string): Frame => {
    const s = session(c);
    return {
      title,
      store: ctx.storeLabel,
      actions: ctx.allowActions,
      refreshMs: ctx.refreshMs,
      ...(s && ctx.auth.valid(s) ? { csrf: ctx.auth.csrfFor(s) } : {}),
    };
  };
  const page = (c: Context, title: string, content: Html, status = 200) =>
    c.html(layout(frame(c, title), content).text, status as 200);
  const fragment = (c: Context) => c.req.query('fragment') === 'live';

  app.use('*', guard(bindHost));
  app.get('/assets/:file', (c) => {
    const name = c.req.param('file');
    const text = assets.get(name);
    if (text === undefined) return refuse(c, 404, 'not found');
    return c.body(text, 200, { 'Content-Type': ASSETS[name] as string });
  });
  app.use('*', async (c, next) => {
    if (c.req.method === 'POST') {
      if (!sameOrigin(c)) {
        ctx.log(
          `refused a cross-origin ${c.req.method} ${c.req.path} (origin ${c.req.header('origin') ?? 'none'})`,
        );
        return refuse(c, 403, 'cross-origin request refused');
      }
      return bodyLimit({
        maxSize: MAX_BODY,
        onError: (c2) => refuse(c2, 413, 'request too large'),
      })(c, next);
    }
    await next();
  });
  app.use('*', async (c, next) => {
    if (!ctx.auth.required || c.req.path === '/login' || ctx.auth.valid(session(c))) return next();
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD')
      return refuse(c, 401, 'log in first: the token is needed');
    if (fragment(c)) return refuse(c, 401, 'log in again');
    return c.redirect(`/login?next=${encodeURIComponent(c.req.path)}`, 303);
  });

  app.get('/login', (c) => page(c, 'Log in', loginPage(localPath(c.req.query('next')))));
  app.post('/login', async (c) => {
    const body = await c.req.parseBody();
    const { session: s, throttled } = ctx.auth.login(String(body.token ?? ''));
    if (!s) {
      ctx.log(`login refused${throttled ? ' (too many wrong tokens this minute)' : ''}`);
      const text = throttled ? 'too many wrong tokens: wait a minute' : 'wrong token';
      return page(
        c,
        'Log in',
        html`${notice('error', text)}${loginPage(localPath(String(body.next ?? '')))}`,
        throttled ? 429 : 401,
      );
    }
    ctx.log('login');
    const secure = new URL(c.req.url).protocol === 'https:';
    setCookie(c, SESSION_COOKIE, s, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      secure,
      maxAge: SESSION_MS / 1_000,
    });
    return c.redirect(localPath(String(body.next ?? '')), 303);
  });
  app.post('/logout', async (c) => {
    const body = await c.req.parseBody();
    const s = session(c);
    if (!ctx.auth.csrfValid(s, String(body.csrf ?? ''))) return refuse(c, 403, 'bad CSRF token');
    ctx.auth.logout(s);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.redirect('/login', 303);
  });

  app.get('/', async (c) => {
    const content = await overview(ctx);
    return fragment(c)
      ? c.html(content.text)
      : page(c, 'Overview', live('/?fragment=live', content));
  });
  app.get('/tx', async (c) => {
    const query = new URL(c.req.url).searchParams;
    let p: ReturnType<typeof listParams>;
    try {
      p = listParams(query);
    } catch (err) {
      if (err instanceof BadQuery)
        return page(c, 'Transactions', notice('error', err.message), 400);
      throw err;
    }
    const content = await txList(ctx, p);
    if (fragment(c)) return c.html(content.text);
    query.set('fragment', 'live');
    return page(c, 'Transactions', html`${listForm(p)}${live(`/tx?${query}`, content)}`);
  });
  app.get('/tx/:id', async (c) => {
    const id = txId(c);
    if (!id) return page(c, 'Transaction', notice('error', 'not a transaction id'), 400);
    const read = await readTx(ctx, id);
    const content = await txDetails(ctx, id, read);
    if (fragment(c)) return c.html(content.text);
    const s = session(c);
    const actions = ctx.allowActions && s && ctx.auth.valid(s) ? actionsBlock(id, read) : html``;
    return page(
      c,
      `Transaction ${id}`,
      html`${live(`/tx/${id}?fragment=live`, content)}${actions}`,
      read.kind === 'absent' ? 404 : 200,
    );
  });
  app.get('/tx/:id/:action', async (c) => {
    const id = txId(c);
    const action = actionNamed(c.req.param('action'));
    if (!id || !action) return page(c, 'Not found', notice('error', 'no such page'), 404);
    if (!ctx.allowActions)
      return page(
        c,
        'Read-only',
        notice('error', 'this console is read-only (started without --allow-actions)'),
        403,
      );
    const s = session(c) as string; // actions need a token, so a session was checked above
    return page(
      c,
      `${action.label} ${id}?`,
      confirmPage(id, action, await readTx(ctx, id), ctx.auth.csrfFor(s)),
    );
  });
  app.post('/tx/:id/:action', async (c) => {
    const id = txId(c);
    const action = actionNamed(c.req.param('action'));
    if (!id || !action) return refuse(c, 404, 'no such action');
    if (!ctx.allowActions) {
      ctx.log(`refused ${action.name} ${id}: read-only console`);
      return refuse(c, 403, 'this console is read-only (started without --allow-actions)');
    }
    const body = await c.req.parseBody();
    if (!ctx.auth.csrfValid(session(c), typeof body.csrf === 'string' ? body.csrf : undefined)) {
      ctx.log(`refused ${action.name} ${id}: bad CSRF token`);
      return refuse(c, 403, 'bad CSRF token: reload the page and try again');
    }
    const { status, content } = await runActionPage(ctx, action, id);
    return page(c, `${action.label} ${id}`, content, status);
  });

  app.notFound((c) => page(c, 'Not found', notice('error', 'no such page'), 404));
  app.onError((err, c) => {
    const code = isFateError(err) ? err.code : undefined;
    ctx.log(`error on ${c.req.method} ${c.req.path}: ${err.message}${code ? ` [${code}]` : ''}`);
    const text = `${err.message}${code ? ` [${code}]` : ''}`;
    if (fragment(c)) return refuse(c, 503, text);
    return page(c, 'Error', notice('error', text), 503);
  });
  return app;
}

function txId(c: Context): FateId | undefined {
  const id = c.req.param('id')?.toLowerCase();
  return id && isFateId(id) ? id : undefined;
}

/** A path on this console to go to after logging in; anything else goes to the overview. */
function localPath(next: string | undefined): string {
  return next && /^\/(?![/\\])[\w\-/.?=&%]*$/.test(next) ? next : '/';
}

export { Html };
