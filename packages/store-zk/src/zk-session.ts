import { debuglog } from 'node:util';
import { FateError, FateErrorCode } from '@fate/core';
import type { ResolvedZkConfig } from './zk-config.js';
import { failure, unavailable } from './zk-errors.js';
import { type NativeZk, nativeZooKeeper, Rc, ZooKeeperState } from './zk-native.js';

/** `NODE_DEBUG=fate-zk` traces each session's life: opens, timeouts, closes, cuts. */
const trace = debuglog('fate-zk');

/** How often the freeze watchdog looks at the clock, ms. */
const WATCHDOG_MS = 100;

/**
 * One ZooKeeper session at a time, opened on demand. When the session ends (expired, or
 * the binding gave up on it) the next request opens a new one and `onNewSession` hooks
 * run, so watches can be set again.
 */
export class ZkSession {
  readonly #config: ResolvedZkConfig;
  #zk: NativeZk | undefined;
  #opening: Promise<NativeZk> | undefined;
  /** The handle `#opening` waits for, to close it at once on `close` or `disconnect`. */
  #openingZk: NativeZk | undefined;
  /** The handle opening is closed when it has no session by then (see `get`). */
  #wantedUntil = 0;
  #closed = false;
  #generation = 0;
  /** The session of a handle `sent` closed, to resume on the next handle (see `sent`). */
  #resume: { client_id: string; client_password: string } | undefined;
  /** A handle was closed by `sent` in the synchronous run now going on (see `cut`). */
  #cut = false;
  readonly #hooks = new Set<() => void>();
  #watchdog: NodeJS.Timeout | undefined;

  constructor(config: ResolvedZkConfig) {
    this.#config = config;
  }

  /** The connected handle, if any, without waiting. */
  get current(): NativeZk | undefined {
    return this.#closed ? undefined : this.#zk;
  }

  /** Increases with every new session. */
  get generation(): number {
    return this.#generation;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Runs `hook` after each new session after the first. */
  onNewSession(hook: () => void): () => void {
    this.#hooks.add(hook);
    return () => this.#hooks.delete(hook);
  }

  /**
   * The connected session, opening one if there is none; fails after `connectTimeoutMs`.
   *
   * A handle still opening is kept, not thrown away, when a caller gives up: the C client
   * walks the servers one at a time and waits up to a session timeout on one that accepts
   * connections but never answers (a hung server), so a new handle, starting over in a new
   * random order, could land on the same server again and again while the others serve.
   * The walk goes on while callers keep asking, and for one connect timeout after the last
   * one gave up (never longer than a walk over every server); then the handle is closed, so
   * nothing keeps an idle process alive.
   */
  get(): Promise<NativeZk> {
    if (this.#closed) {
      return Promise.reject(new FateError(FateErrorCode.CLOSED, 'the ZooKeeper store is closed'));
    }
    if (this.#zk) return Promise.resolve(this.#zk);
    const { connect, connectTimeoutMs } = this.#config;
    this.#wantedUntil = performance.now() + 2 * connectTimeoutMs;
    if (!this.#opening) {
      const opening = this.#open().finally(() => {
        if (this.#opening === opening) this.#opening = undefined;
      });
      opening.catch(() => undefined); // its callers are told, each by their own deadline
      this.#opening = opening;
    }
    const opening = this.#opening;
    return new Promise<NativeZk>((resolve, reject) => {
      const timer = setTimeout(() => {
        trace('get: no session after %d ms; the handle keeps trying', connectTimeoutMs);
        reject(unavailable(`no session with ${connect} within ${connectTimeoutMs} ms`));
      }, connectTimeoutMs);
      opening.then(resolve, reject).finally(() => clearTimeout(timer));
    });
  }

  #open(): Promise<NativeZk> {
    const { connect, sessionTimeoutMs, connectTimeoutMs, auth } = this.#config;
    const ZooKeeper = nativeZooKeeper();
    const zk: NativeZk = new ZooKeeper({
      connect,
      timeout: sessionTimeoutMs,
      // 0 silences the C client's own stderr log; failures reach callers as FateErrors.
      debug_level: 0,
      host_order_deterministic: false,
      // The binding closes a session after this many partial reads in a row; reading a
      // znode near 1 MB takes dozens, so its default of 10 kills healthy sessions. The
      // session and request timeouts bound a dead connection instead.
      response_counter_limit: 100_000,
    });
    const started = performance.now();
    const since = () => Math.round(performance.now() - started);
    trace('open: %s', this.#resume ? `resuming ${this.#resume.client_id}` : 'new session');
    return new Promise<NativeZk>((resolve, reject) => {
      let settled = false;
      let timer: NodeJS.Timeout;
      // At most a walk over every server: a handle the binding left stuck (it can stop
      // driving one whose first attempt failed) is replaced, however many callers ask.
      const lastChance = started + connect.split(',').length * sessionTimeoutMs + connectTimeoutMs;
      const expire = () => {
        const left = Math.min(this.#wantedUntil, lastChance) - performance.now();
        if (left > 0) {
          timer = setTimeout(expire, left);
          return;
        }
        settled = true;
        trace('open: no session after %d ms, closing it (state %d)', since(), zk.state);
        zk.close();
        reject(unavailable(`no session with ${connect} within ${connectTimeoutMs} ms`));
      };
      timer = setTimeout(expire, connectTimeoutMs);
      const resuming = this.#resume;
      this.#openingZk = zk;
      zk.on('close', () => {
        if (this.#openingZk === zk) this.#openingZk = undefined;
        // The handle is dead now (expired, or given up by the binding): never use it again.
        if (this.#zk === zk) this.#zk = undefined;
        // a session it was resuming is over (expired): the next handle starts a new one
        if (resuming && this.#resume === resuming) this.#resume = undefined;
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          trace('open: closed after %d ms', since());
          reject(unavailable(`the session with ${connect} closed while opening`));
        }
      });
      const ready = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (this.#openingZk === zk) this.#openingZk = undefined;
        if (this.#closed) {
          zk.close();
          reject(new FateError(FateErrorCode.CLOSED, 'the ZooKeeper store is closed'));
          return;
        }
        this.#zk = zk;
        trace('open: session %s after %d ms', zk.client_id, since());
        if (this.#resume === resuming) this.#resume = undefined;
        this.#generation++;
        this.#watch();
        resolve(zk);
        if (this.#generation > 1) for (const hook of this.#hooks) hook();
      };
      const refused = (rc: number) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        zk.close();
        reject(failure('addAuthInfo for', auth?.toString() ?? '', rc));
      };
      zk.once('connect', () => {
        if (settled) return;
        if (!auth) return ready();
        // Every session, the first one and each after an expiry, authenticates before any
        // request is sent on it (the C client itself re-sends it when the same session
        // reconnects). A digest is accepted whatever the password: wrong credentials show
        // as ZNOAUTH on the nodes, not here.
        const sent = zk.native.add_auth('digest', auth.credentials(), (rc) =>
          rc === Rc.OK ? ready() : refused(rc),
        );
        if (sent !== Rc.OK) refused(sent);
        else this.sent(zk);
      });
      try {
        zk.init(resuming ? { ...resuming } : {});
      } catch (cause) {
        settled = true;
        clearTimeout(timer);
        if (this.#openingZk === zk) this.#openingZk = undefined;
        reject(unavailable(`cannot start a session with ${connect}`, cause));
      }
    });
  }

  /**
   * Watches for this process being frozen (stopped, swapped out, a long pause) for longer
   * than the session timeout: then the session is gone, and the handle is closed from
   * here, outside the binding's callbacks, before the C client finds the expiry itself.
   * The binding closes an expired handle from inside zookeeper_process(), which can abort
   * the process (SIGABRT in libuv); closing first avoids that path.
   */
  #watch(): void {
    if (this.#watchdog) return;
    let last = performance.now();
    this.#watchdog = setInterval(() => {
      const now = performance.now();
      const frozen = now - last;
      last = now;
      const zk = this.#zk;
      if (zk && frozen > this.#config.sessionTimeoutMs) {
        trace('watchdog: frozen %d ms, closing session %s', Math.round(frozen), zk.client_id);
        this.#zk = undefined;
        zk.close();
      }
    }, WATCHDOG_MS);
    this.#watchdog.unref();
  }

  /** Closes the session; its ephemeral nodes go at once. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#watchdog);
    const opening = this.#opening;
    const zk = this.#zk;
    this.#zk = undefined;
    zk?.close();
    this.#openingZk?.close(); // its 'close' rejects the opening at once
    await opening?.then((z) => z.close()).catch(() => undefined);
  }

  /**
   * Ends the current session without closing the client (a failed open), so nothing keeps
   * the process alive; the next request opens a new session.
   */
  async disconnect(): Promise<void> {
    this.#openingZk?.close();
    await this.#opening?.catch(() => undefined);
    const zk = this.#zk;
    this.#zk = undefined;
    zk?.close();
  }

  /**
   * Call right after every request made on `zk`. A request the C client cannot write (the
   * connection is dead: reset, or closed by the servers when the session expired while this
   * process was frozen) makes it close its socket inside the call, unknown to the binding,
   * whose poll watcher stays armed on the closed descriptor: libuv then aborts the process
   * (EBADF from epoll_ctl) on its next poll, unless the binding re-arms the watcher first from
   * one of its own callbacks. So the handle is closed here, at once — that stops the watcher —
   * and the next request opens a new session; the handle's requests in flight answer
   * ZCLOSING (outcome unknown). No request of this backend needs the old session kept: it
   * creates no ephemeral nodes, and watches are set again on every new session.
   */
  sent(zk: NativeZk): void {
    if (zk.state !== ZooKeeperState.NOT_CONNECTED) return;
    if (this.#zk === zk) this.#zk = undefined;
    // The session itself may well be alive (a server died, the others elect a leader): the
    // next handle resumes it, as the C client's own reconnect would, instead of having to
    // create a new one, which the servers refuse until they have a leader.
    const { client_id, client_password } = zk;
    if (client_id && client_password) this.#resume = { client_id, client_password };
    trace('sent: connection lost, closing the handle of session %s', client_id);
    zk.close();
    if (!this.#cut) {
      this.#cut = true;
      queueMicrotask(() => {
        this.#cut = false;
      });
    }
  }

  /**
   * True while the synchronous run that just had a request cut by a dead connection (see
   * `sent`) goes on: the requests it sends next were meant to follow that one on the same
   * session (a pipeline: a marker's create, then its record's), and must not go out alone on
   * a new session, where they would apply without it. They fail instead (outcome known: not
   * sent), so whatever applied of a pipeline is always a prefix of it.
   */
  get cut(): boolean {
    return this.#cut;
  }

  /**
   * Forgets a handle whose session is over even though no `close` event said so, so the
   * next request opens a new session instead of failing on the dead one forever.
   */
  drop(zk: NativeZk): void {
    if (this.#zk !== zk) return;
    this.#zk = undefined;
    trace('drop: session %s is over', zk.client_id);
    // Not from inside the binding's callback: close the handle once it has returned.
    setImmediate(() => zk.close());
  }
}
