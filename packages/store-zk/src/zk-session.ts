import { FateError, FateErrorCode } from '@fate/core';
import type { ResolvedZkConfig } from './zk-config.js';
import { failure, unavailable } from './zk-errors.js';
import { type NativeZk, nativeZooKeeper, Rc } from './zk-native.js';

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
      zk.on('close', () => {
        // The handle is dead now (expired, or given up by the binding): never use it again.
        if (this.#zk === zk) this.#zk = undefined;
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
      });
      try {
        zk.init({});
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
