import type { FateEvents } from './events.js';
import type { FateLogger } from './logger.js';
import type { FateMetrics } from './metrics.js';

/** What an engine event means for the logs and the metrics. */
export function recordEvent<K extends keyof FateEvents>(
  metrics: FateMetrics,
  logger: FateLogger,
  type: K,
  event: FateEvents[K],
): void {
  if (type === 'warning') {
    const e = event as FateEvents['warning'];
    metrics.warned();
    logger.warn({ ...(e.id ? { id: e.id } : {}), ...(e.error ? { err: e.error } : {}) }, e.message);
  } else if (type === 'scan') {
    const e = event as FateEvents['scan'];
    metrics.scanned(e.strategy, e.itemsRead, e.ms / 1_000);
  } else if (type === 'recovered') {
    metrics.recovered((event as FateEvents['recovered']).count);
  } else if (type === 'finished') {
    metrics.finished((event as FateEvents['finished']).status);
  }
}
