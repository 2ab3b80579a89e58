import { mapLimit } from '@fate/core';
import type { ResolvedZkConfig } from './zk-config.js';
import { ZkDeadlines } from './zk-deadlines.js';
import { failure, unavailable } from './zk-errors.js';
import { type NativeZk, Rc, type RcCallback } from './zk-native.js';
import type { ZkSession } from './zk-session.js';

/** Requests in flight at once by scans, listings and repairs (`pipelined`, see below). */
export const PIPELINE_DEPTH = 64;
/** `mapLimit`, named for what it does here: requests pipelined on one session. */
export const pipelined = mapLimit;

/**
 * Sends the requests of one `ZkClient` on its session: each bounded by
 * `operationTimeoutMs`, failing as `FATE_STORE_UNAVAILABLE`; sent at once, before the call
 * returns, when a session is up (so one caller's requests keep their order).
 */
export class ZkRequests {
  readonly #config: ResolvedZkConfig;
  readonly #deadlines: ZkDeadlines;
  readonly #session: ZkSession;

  constructor(config: ResolvedZkConfig, session: ZkSession) {
    this.#config = config;
    this.#deadlines = new ZkDeadlines(config.operationTimeoutMs);
    this.#session = session;
  }

  /** Sends one request (at once when a session is up) and resolves with its result code. */
  request<T extends unknown[]>(
    what: string,
    path: string,
    send: (zk: NativeZk, cb: RcCallback<T>) => number,
  ): Promise<{ rc: number; result: T }> {
    const zk = this.#session.current;
    if (zk) return this.#send(zk, what, path, send);
    if (this.#session.cut) {
      return Promise.reject(
        unavailable(`${what} ${path}: not sent, as a request sent just before it was cut`),
      );
    }
    return this.#session.get().then((z) => this.#send(z, what, path, send));
  }

  #send<T extends unknown[]>(
    zk: NativeZk,
    what: string,
    path: string,
    send: (zk: NativeZk, cb: RcCallback<T>) => number,
  ): Promise<{ rc: number; result: T }> {
    return new Promise((resolve, reject) => {
      const answered = this.#deadlines.start(() => {
        const ms = this.#config.operationTimeoutMs;
        reject(unavailable(`${what} ${path}: no answer within ${ms} ms`));
      });
      let sent: number;
      try {
        sent = send(zk, (rc, _error, ...result) => {
          answered();
          if (rc === Rc.SESSIONEXPIRED) this.#session.drop(zk);
          resolve({ rc, result });
        });
      } catch (cause) {
        answered();
        reject(unavailable(`${what} ${path} could not be sent`, cause));
        return;
      }
      if (sent !== Rc.OK) {
        answered();
        if (sent === Rc.INVALIDSTATE) this.#session.drop(zk);
        reject(failure(what, path, sent));
        return;
      }
      this.#session.sent(zk);
    });
  }
}
