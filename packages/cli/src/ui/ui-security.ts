import type { Context, MiddlewareHandler } from 'hono';

/** Longest URL (path and query) served; longer is 414. */
export const MAX_URL = 4_096;
/** Largest request body accepted (forms only), bytes. */
export const MAX_BODY = 8_192;

/** Headers on every answer: no inline script or style, no framing, no sniffing, no caching. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
  'Cache-Control': 'no-store',
};

export const LOOPBACK_NAMES: ReadonlySet<string> = new Set([
  'localhost',
  '127.0.0.1',
  '::1',
  '[::1]',
]);

/** A host name or address that only this machine reaches. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return LOOPBACK_NAMES.has(h) || /^127(\.\d{1,3}){3}$/.test(h);
}

/** The host part of a Host header (`[::1]:8080` → `[::1]`, `a.b:80` → `a.b`). */
export function hostName(header: string): string {
  const m = /^(\[[^\]]*\]|[^:]*)(?::\d+)?$/.exec(header.trim());
  return (m?.[1] ?? '').toLowerCase();
}

/**
 * Refuses what no page needs before any handler runs: methods other than GET, HEAD and POST,
 * long URLs, and — on a console bound to loopback — a Host header naming another host (a
 * DNS-rebinding page would send its own name). Adds the security headers to every answer.
 */
export function guard(bindHost: string): MiddlewareHandler {
  const loopbackOnly = isLoopback(bindHost);
  return async (c, next) => {
    const url = new URL(c.req.url);
    if (!['GET', 'HEAD', 'POST'].includes(c.req.method))
      return refuse(c, 405, 'method not allowed');
    if (url.pathname.length + url.search.length > MAX_URL) return refuse(c, 414, 'URL too long');
    const host = c.req.header('host');
    if (loopbackOnly && (!host || !isLoopback(hostName(host))))
      return refuse(c, 421, 'this console answers only to a loopback host name');
    await next();
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(k, v);
  };
}

/**
 * A POST must come from a page of this console: its Origin (or, without one, its Referer)
 * must be this server's own origin, and `Sec-Fetch-Site`, when sent, must say same-origin.
 */
export function sameOrigin(c: Context): boolean {
  const host = c.req.header('host');
  if (!host) return false;
  const own = `${new URL(c.req.url).protocol}//${host}`.toLowerCase();
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = c.req.header('origin');
  if (origin !== undefined) return origin.toLowerCase() === own;
  const referer = c.req.header('referer');
  if (referer === undefined) return false;
  try {
    return new URL(referer).origin.toLowerCase() === own;
  } catch {
    return false;
  }
}

/** A short plain answer with the security headers (also for refusals before `next`). */
export function refuse(c: Context, status: number, message: string): Response {
  const res = c.text(`${message}\n`, status as 400);
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.headers.set(k, v);
  return res;
}
