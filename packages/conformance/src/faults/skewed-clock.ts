/**
 * Runs `call` with `Date.now()` off by `skewMs` for its synchronous part (where backends
 * read it), as on a host whose clock is wrong; `Date.now` is restored before this returns.
 */
export function withSkewedClock<T>(skewMs: number, call: () => T): T {
  if (!skewMs) return call();
  const realNow = Date.now;
  Date.now = () => realNow.call(Date) + skewMs;
  try {
    return call();
  } finally {
    Date.now = realNow;
  }
}
