import { FateError, FateErrorCode } from '@fate/core';
import type { ResolvedZkConfig } from './zk-config.js';
import { failure, unavailable } from './zk-errors.js';
import { type NativeZk, nativeZooKeeper, Rc, ZooKeeperState } from './zk-native.js';

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

  /** The connected session, opening one if there is none. */
  get(): Promise<NativeZk> {
    if (this.#closed) {
      return Promise.reject(new FateError(FateErrorCode.CLOSED, 'the ZooKeeper store is closed'));
    }
    if (this.#zk) return Promise.resolve(this.#zk);
    this.#opening ??= this.#open().finally(() => {
      this.#opening = undefined;
    });
    return this.#opening;
  }

  #open(): Promise<NativeZk> {
    const { connect, sessionTimeoutMs, connectTimeoutMs, auth } = this.#config;
    const ZooKeeper = nativeZooKeeper();
    const zk = new ZooKeeper({
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
    return new Promise<NativeZk>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        zk.close();
        reject(unavailable(`no session with ${connect} within ${connectTimeoutMs} ms`));
      }, connectTimeoutMs);
      const resuming = this.#resume;
      zk.on('close', () => {
        // The handle is dead now (expired, or given up by the binding): never use it again.
        if (this.#zk === zk) this.#zk = undefined;
        // a session it was resuming is over (expired): the next handle starts a new one
        if (resuming && this.#resume === resuming) this.#resume = undefined;
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          reject(unavailable(`the session with ${connect} closed while opening`));
        }
      });
      const ready = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (this.#closed) {
          zk.close();
          reject(new FateError(FateErrorCode.CLOSED, 'the ZooKeeper store is closed'));
          return;
        }
        this.#zk = zk;
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
    await opening?.then((z) => z.close()).catch(() => undefined);
  }

  /**
   * Ends the current session without closing the client (a failed open), so nothing keeps
   * the process alive; the next request opens a new session.
   */
  async disconnect(): Promise<void> {
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
    // Not from inside the binding's callback: close the handle once it has returned.
    setImmediate(() => zk.close());
  }
}
