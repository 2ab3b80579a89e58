import type { FateEvents } from '@fate/core';

export type RetryEvent = FateEvents['retry'];

/** Collects an engine's retry events and warnings: pass `onEvent` to the engine. */
export function watchRetries() {
  const retries: RetryEvent[] = [];
  const warnings: string[] = [];
  return {
    retries,
    warnings,
    onEvent: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => {
      if (type === 'retry') retries.push(event as RetryEvent);
      if (type === 'warning') warnings.push((event as FateEvents['warning']).message);
    },
  };
}
