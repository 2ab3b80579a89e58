import type { TxRetry } from '@fate/core';

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
      `step ${retry.depth} (${retry.type}): ${retry.attempts} of ${retry.maxAttempts} attempts failed${errors.length ? `; last ${errors.length} errors, oldest first:` : ''}`,
    ),
    ...errors.map((e, i) =>
      field(`  ${i + 1}.`, `${e.name ?? 'Error'}${e.code ? ` [${e.code}]` : ''}: ${e.message}`),
    ),
  ];
}
