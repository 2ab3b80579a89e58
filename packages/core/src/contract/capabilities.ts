import { invalidArgument } from '../errors.js';

/**
 * What a backend declares about itself. The conformance suite skips a group only from
 * these, never from flags its caller passes.
 */
export interface StoreCapabilities {
  /** Largest stored transaction (stack + info, serialized) the backend accepts, in bytes. */
  readonly maxRecordBytes: number;
  /** Range scans read only their range (ids are kept sorted). */
  readonly sortedScan: boolean;
  /** The backend pushes wake-ups (watch, pub/sub) to other clients when work is seeded. */
  readonly wakeups: boolean;
  /** Clients in different processes can share the data. */
  readonly multiProcess: boolean;
  /**
   * Scans and claims take higher priorities first (`NewRecord.priority`, issue 25), and
   * reads answer the stored priority. A backend without it stores none and runs all as 0.
   */
  readonly priorities: boolean;
}

/**
 * A backend's capabilities, checked and frozen: every backend declares them through this
 * one function, so a mistyped field fails when the backend is constructed, not in a suite.
 */
export function declareCapabilities(capabilities: StoreCapabilities): StoreCapabilities {
  const { maxRecordBytes, sortedScan, wakeups, multiProcess, priorities } = capabilities;
  if (!Number.isSafeInteger(maxRecordBytes) || maxRecordBytes < 1024) {
    throw invalidArgument('capabilities.maxRecordBytes must be an integer of at least 1024');
  }
  for (const [name, value] of Object.entries({ sortedScan, wakeups, multiProcess, priorities })) {
    if (typeof value !== 'boolean') throw invalidArgument(`capabilities.${name} must be a boolean`);
  }
  return Object.freeze({ maxRecordBytes, sortedScan, wakeups, multiProcess, priorities });
}
