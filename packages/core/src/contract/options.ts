import { randomUUID } from 'node:crypto';
import { invalidArgument } from '../errors.js';

/** Options of one store client. */
export interface StoreOptions {
  /** This client's instance id (lock id). Default: a fresh UUID. */
  readonly instanceId?: string;
  /**
   * How long a registered instance stays live after its last heartbeat, ms.
   * Default 3,000: dead reservations can be cleared within seconds.
   */
  readonly livenessTimeoutMs?: number;
}

export interface ResolvedStoreOptions {
  readonly instanceId: string;
  readonly livenessTimeoutMs: number;
}

export function resolveStoreOptions(options: StoreOptions = {}): ResolvedStoreOptions {
  const instanceId = options.instanceId ?? randomUUID();
  if (typeof instanceId !== 'string' || !/^[\w.:-]{1,128}$/.test(instanceId)) {
    throw invalidArgument('instanceId must be 1-128 characters of [A-Za-z0-9_.:-]');
  }
  const livenessTimeoutMs = options.livenessTimeoutMs ?? 3_000;
  if (!Number.isInteger(livenessTimeoutMs) || livenessTimeoutMs < 100) {
    throw invalidArgument('livenessTimeoutMs must be an integer >= 100');
  }
  return Object.freeze({ instanceId, livenessTimeoutMs });
}
