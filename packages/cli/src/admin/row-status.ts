import { STORED_STATUSES, type Status, type TxSummary } from '@fate/core';
import { usageError } from '../cli-error.js';

/**
 * The status admin commands show for a row. A record that cannot be decoded lists as
 * UNKNOWN with a `corrupt` reason; operators see it as CORRUPT, so it is neither mistaken
 * for an absent transaction nor hidden among them.
 */
export type RowStatus = Status | 'CORRUPT';

export const CORRUPT = 'CORRUPT' satisfies RowStatus;

/** What `--status` accepts, in the order summaries print them. */
export const ROW_STATUSES: readonly RowStatus[] = [...STORED_STATUSES, CORRUPT];

export function rowStatus(row: Pick<TxSummary, 'corrupt' | 'status'>): RowStatus {
  return row.corrupt !== undefined ? CORRUPT : row.status;
}

/** `--status submitted,CORRUPT` → the statuses; an unknown one is a usage error. */
export function parseStatuses(raw: string): ReadonlySet<RowStatus> {
  const out = new Set<RowStatus>();
  for (const part of raw.split(',')) {
    const status = part.trim().toUpperCase() as RowStatus;
    if (!ROW_STATUSES.includes(status)) {
      throw usageError(
        `unknown status ${JSON.stringify(part)} in --status (one of ${ROW_STATUSES.join(', ')})`,
      );
    }
    out.add(status);
  }
  return out;
}
