import { setTimeout as sleep } from 'node:timers/promises';
import type { StoredRecord } from '../contract/backend.js';
import type { ReserveOptions } from '../contract/types.js';
import { FateError, FateErrorCode, invalidArgument } from '../errors.js';
import { type FateId, parseFateId } from '../ids.js';

/**
 * Runs `attempt` until it returns a value, waiting while `id` is held by someone else: an
 * absent id is `FATE_NOT_FOUND` at once, the signal gives `FATE_ABORTED`, the timeout
 * `FATE_TIMEOUT`. Pauses grow from 5 to 100 ms, so a long wait costs ten reads a second.
 */
export async function untilFree<T>(
  id: FateId,
  options: ReserveOptions,
  read: (id: FateId) => Promise<StoredRecord | undefined>,
  attempt: () => Promise<T | undefined>,
): Promise<T> {
  parseFateId(id);
  const { signal, timeoutMs } = options;
  if (timeoutMs !== undefined && (!Number.isFinite(timeoutMs) || timeoutMs < 0)) {
    throw invalidArgument('timeoutMs must be a finite number >= 0');
  }
  const deadline = performance.now() + (timeoutMs ?? Number.POSITIVE_INFINITY);
  let pause = 5;
  for (;;) {
    if (signal?.aborted) {
      throw new FateError(FateErrorCode.ABORTED, `reserving ${id} was aborted`, {
        cause: signal.reason,
      });
    }
    const done = await attempt();
    if (done !== undefined) return done;
    if (!(await read(id))) throw new FateError(FateErrorCode.NOT_FOUND, `no transaction ${id}`);
    const left = deadline - performance.now();
    if (left <= 0) {
      throw new FateError(FateErrorCode.TIMEOUT, `${id} stayed reserved for ${timeoutMs} ms`);
    }
    try {
      await sleep(Math.min(pause, left), undefined, signal ? { signal } : {});
    } catch {
      // the loop reports the abort
    }
    pause = Math.min(pause * 2, 100);
  }
}
