/** Query parameters whose values are secrets (libpq's `password`, `sslpassword`; any `*pass*`). */
const SECRET_PARAM = /pass|secret|token/i;

/**
 * A store URL fit for a message or a log line: the password of its `user:password@` is
 * replaced by `***` (the user is kept; the userinfo ends at the authority's last `@`, as
 * WHATWG URLs read it), and so is the value of any query parameter named
 * like a secret (`password=`, `sslpassword=`). Every message that shows a store URL shows
 * it through this; anything not URL-shaped is returned unchanged.
 *
 * @example
 * redactStoreUrl('rediss://app:s3cret@redis:6380?prefix=x'); // 'rediss://app:***@redis:6380?prefix=x'
 */
export function redactStoreUrl(url: string): string {
  if (typeof url !== 'string') return String(url);
  // the userinfo runs to the authority's last `@`: an unencoded `@` in a password is hidden too
  const userinfo = url.replace(
    /^((?:[a-z][a-z0-9+.-]*:)?\/\/)([^/?#]*)@/i,
    (_, scheme: string, info: string) =>
      `${scheme}${info.includes(':') ? `${info.slice(0, info.indexOf(':'))}:***` : info}@`,
  );
  return userinfo.replace(/([?&])([^=&#]*)=([^&#]*)/g, (whole, sep: string, name: string) =>
    SECRET_PARAM.test(decodeSafely(name)) ? `${sep}${name}=***` : whole,
  );
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
