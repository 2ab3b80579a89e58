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
  /** When the last answer came (`performance.now()`), and how many are awaited now. */
  #lastAnswer = performance.now();
  #unanswered = 0;

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
      this.#unanswered++;
      const answered = this.#deadlines.start(() => {
        const ms = this.#config.operationTimeoutMs;
        reject(unavailable(`${what} ${path}: no answer within ${ms} ms (${this.#health(zk)})`));
      });
      let sent: number;
      try {
        sent = send(zk, (rc, _error, ...result) => {
          answered();
          this.#unanswered--;
          this.#lastAnswer = performance.now();
          if (rc === Rc.SESSIONEXPIRED) this.#session.drop(zk);
          resolve({ rc, result });
        });
      } catch (cause) {
        answered();
        this.#unanswered--;
        reject(unavailable(`${what} ${path} could not be sent`, cause));
        return;
      }
      if (sent !== Rc.OK) {
        answered();
        this.#unanswered--;
        if (sent === Rc.INVALIDSTATE) this.#session.drop(zk);
        reject(failure(what, path, sent));
        return;
      }
      this.#session.sent(zk);
    });
  }

  /**
   * What an expired request's error says of the connection, to tell a stalled server
   * (others unanswered as long, state connected) from a lost connection or a slow answer.
   */
  #health(zk: NativeZk): string {
    const ago = Math.round(performance.now() - this.#lastAnswer);
    return [
      zk.client_id
        ? `session 0x${zk.client_id}, ${stateName(zk.state)}`
        : `no session, ${stateName(zk.state)}`,
      `last answer from ZooKeeper ${ago} ms ago`,
      `${this.#unanswered} unanswered`,
    ].join(', ');
  }
}

/** The C client's state names (zookeeper.h). */
const STATE_NAMES: Readonly<Record<number, string>> = {
  [-113]: 'auth failed',
  [-112]: 'session expired',
  0: 'closed',
  1: 'connecting',
  2: 'associating',
  3: 'connected',
  5: 'read-only',
  999: 'not connected',
};

function stateName(state: number): string {
  return STATE_NAMES[state] ?? `state ${state}`;
}
