import type { TxError, TxRetry } from '@fate/core';

/** Which step was retried and how many of its calls failed of how many its policy allows. */
export function retrySummary(retry: TxRetry): string {
  return `step ${retry.depth} (${retry.type}): ${retry.attempts} of ${retry.maxAttempts} attempts failed`;
}

/** One of the last errors kept of a retried step: `Name [code]: message`. */
export function retryErrorText(e: Pick<TxError, 'name' | 'code' | 'message'>): string {
  return `${e.name ?? 'Error'}${e.code ? ` [${e.code}]` : ''}: ${e.message}`;
}

/**
 * `fate show`'s lines for a step's retries (`info.retry`): which step, how many of its
 * calls failed of how many its policy allows, and the last errors kept, oldest first.
 */
export function retryLines(
  retry: TxRetry | undefined,
  field: (label: string, value: string) => string,
): string[] {
  if (!retry) return [field('retries', 'none')];
  const errors = retry.errors ?? [];
  return [
    field(
      'retries',
      `${retrySummary(retry)}${errors.length ? `; last ${errors.length} errors, oldest first:` : ''}`,
    ),
    ...errors.map((e, i) => field(`  ${i + 1}.`, retryErrorText(e))),
  ];
}
