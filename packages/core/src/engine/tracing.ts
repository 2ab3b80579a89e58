import { tracingChannel } from 'node:diagnostics_channel';
import type { FateId } from '../ids.js';

/** What a `fate:step` trace carries: the transaction, the step type, and what it is doing. */
export interface StepTrace {
  readonly id: FateId;
  readonly type: string;
  /** `call` or `undo`. */
  readonly phase: 'call' | 'undo';
  /** The engine's instance id. */
  readonly instanceId: string;
}

/** What a `fate:scan` trace carries. */
export interface ScanTrace {
  readonly instanceId: string;
  readonly strategy: 'hash' | 'range';
  readonly partition: number;
  readonly total: number;
}

/**
 * Tracing hooks through `node:diagnostics_channel`: one tracing channel per kind of work,
 * `fate:step` around every step `call`/`undo` and `fate:scan` around every work-finder
 * scan. Subscribe with `diagnostics_channel.tracingChannel('fate:step').subscribe({ start,
 * end, asyncStart, asyncEnd, error })` (an APM or OpenTelemetry tracer does this); nothing
 * is paid while nobody subscribes.
 */
export const stepChannel = tracingChannel<unknown, StepTrace>('fate:step');
export const scanChannel = tracingChannel<unknown, ScanTrace>('fate:scan');

/** Runs `fn` inside the channel's trace when someone listens, else plainly. */
export function traced<T, C extends object>(
  channel: ReturnType<typeof tracingChannel<unknown, C>>,
  context: C,
  fn: () => Promise<T> | T,
): Promise<T> {
  if (!channel.hasSubscribers) {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err);
    }
  }
  return channel.tracePromise(async () => fn(), context);
}
