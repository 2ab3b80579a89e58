import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The session cookie's name; `HttpOnly`, `SameSite=Strict`, `Path=/`. */
export const SESSION_COOKIE = 'fate_ui_session';
/** How long a session lasts after the token was given, ms. */
export const SESSION_MS = 12 * 3_600_000;
/** Most sessions kept at once; the oldest goes first. */
const MAX_SESSIONS = 1_000;
/** Wrong tokens accepted per minute before logins are refused for the rest of it. */
const MAX_FAILURES_PER_MIN = 10;

/** Equal strings, compared in a time that does not depend on where they differ. */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Sessions of people who gave the console's token, and the CSRF token of each (an HMAC of
 * the session id under a secret of this process, so it is never stored and cannot be
 * guessed from the session cookie's name).
 */
export class UiAuth {
  readonly #token: string | undefined;
  readonly #secret = randomBytes(32);
  readonly #sessions = new Map<string, number>();
  #failures: { minute: number; count: number } = { minute: 0, count: 0 };

  constructor(token: string | undefined) {
    this.#token = token;
  }

  /** A token was set: every page needs a session. */
  get required(): boolean {
    return this.#token !== undefined;
  }

  /** A new session id when `given` is the token; undefined otherwise or when throttled. */
  login(given: string): { session?: string; throttled?: boolean } {
    const minute = Math.floor(Date.now() / 60_000);
    if (this.#failures.minute !== minute) this.#failures = { minute, count: 0 };
    if (this.#failures.count >= MAX_FAILURES_PER_MIN) return { throttled: true };
    if (this.#token === undefined || !sameSecret(given, this.#token)) {
      this.#failures.count++;
      return {};
    }
    const session = randomBytes(32).toString('base64url');
    this.#sessions.set(session, Date.now() + SESSION_MS);
    if (this.#sessions.size > MAX_SESSIONS) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest !== undefined) this.#sessions.delete(oldest);
    }
    return { session };
  }

  /** The session is one this console gave and it has not expired. */
  valid(session: string | undefined): boolean {
    if (session === undefined) return false;
    const until = this.#sessions.get(session);
    if (until === undefined) return false;
    if (until < Date.now()) {
      this.#sessions.delete(session);
      return false;
    }
    return true;
  }

  logout(session: string | undefined): void {
    if (session !== undefined) this.#sessions.delete(session);
  }

  /** The CSRF token forms of this session carry (for a console without a token: of its cookie). */
  csrfFor(session: string): string {
    return createHmac('sha256', this.#secret).update(session).digest('base64url');
  }

  csrfValid(session: string | undefined, given: string | undefined): boolean {
    if (session === undefined || given === undefined) return false;
    return sameSecret(given, this.csrfFor(session));
  }
}
