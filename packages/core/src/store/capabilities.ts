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
}
