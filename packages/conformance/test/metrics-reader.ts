// Reading the engine's metrics as an application does: an OpenTelemetry SDK MeterProvider with
// a reader the test collects from (no exporter, no timer). Shared by the engine-metrics tests.
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';

/** A reader whose `collect()` the test calls (no export, no timer). */
export class CollectingReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export type Point = { attributes: Record<string, unknown>; value: unknown };

/** Each metric's data points, by name, as the reader collects them now. */
export async function collect(reader: MetricReader): Promise<Map<string, Point[]>> {
  const { resourceMetrics } = await reader.collect();
  const out = new Map<string, Point[]>();
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const m of scope.metrics) out.set(m.descriptor.name, m.dataPoints as Point[]);
  }
  return out;
}

/** The sum of `points` whose attributes include `where`. */
export function total(points: readonly Point[] = [], where: Record<string, unknown> = {}): number {
  return points
    .filter((p) => Object.entries(where).every(([k, v]) => p.attributes[k] === v))
    .reduce((n, p) => n + (typeof p.value === 'number' ? p.value : 0), 0);
}

/** A provider with one collecting reader. */
export function meters(): { reader: CollectingReader; meterProvider: MeterProvider } {
  const reader = new CollectingReader();
  return { reader, meterProvider: new MeterProvider({ readers: [reader] }) };
}
