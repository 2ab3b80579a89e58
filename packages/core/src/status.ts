/** The lifecycle of a transaction (DESIGN.md §1). */
export const Status = {
  NEW: 'NEW',
  SUBMITTED: 'SUBMITTED',
  IN_PROGRESS: 'IN_PROGRESS',
  FAILED_IN_PROGRESS: 'FAILED_IN_PROGRESS',
  FAILED: 'FAILED',
  SUCCESSFUL: 'SUCCESSFUL',
  /** No such transaction. Never stored. */
  UNKNOWN: 'UNKNOWN',
} as const;

export type Status = (typeof Status)[keyof typeof Status];

/** Every status that can be stored (all but UNKNOWN). */
export const STORED_STATUSES: readonly Status[] = [
  Status.NEW,
  Status.SUBMITTED,
  Status.IN_PROGRESS,
  Status.FAILED_IN_PROGRESS,
  Status.FAILED,
  Status.SUCCESSFUL,
];

/** All seven statuses. */
export const ALL_STATUSES: readonly Status[] = [...STORED_STATUSES, Status.UNKNOWN];

/** Statuses a work finder picks up. */
export const RUNNABLE_STATUSES: ReadonlySet<Status> = new Set([
  Status.SUBMITTED,
  Status.IN_PROGRESS,
  Status.FAILED_IN_PROGRESS,
]);

/** Statuses a transaction ends in. */
export const FINISHED_STATUSES: ReadonlySet<Status> = new Set([Status.SUCCESSFUL, Status.FAILED]);

/** Store-enforced preconditions: the statuses in which each operation is allowed. */
export const ALLOWED: {
  readonly push: ReadonlySet<Status>;
  readonly pop: ReadonlySet<Status>;
  readonly delete: ReadonlySet<Status>;
} = {
  push: new Set([Status.NEW, Status.IN_PROGRESS]),
  pop: new Set([Status.FAILED_IN_PROGRESS, Status.SUCCESSFUL]),
  delete: new Set([Status.NEW, Status.SUBMITTED, Status.SUCCESSFUL, Status.FAILED]),
};

export function isStoredStatus(value: unknown): value is Status {
  return typeof value === 'string' && (STORED_STATUSES as readonly string[]).includes(value);
}
