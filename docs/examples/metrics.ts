import { Fate, type JsonValue, openStore, type Repo } from '@fate/core';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

// Metrics go through the OpenTelemetry API; the application picks the SDK and exporter.
// Here: Prometheus scrapes http://localhost:9464/metrics (fate_steps_started_total,
// fate_step_duration, fate_workers, fate_transactions, fate_recoveries_total, …).
const exporter = new PrometheusExporter({ port: Number(process.env.METRICS_PORT ?? 9464) });
const meterProvider = new MeterProvider({ readers: [exporter] });

class Ping implements Repo {
  readonly type = 'ping';
  isReady(): number {
    return 0;
  }
  call(): undefined {
    return undefined;
  }
  undo(): void {}
  state(): JsonValue {
    return {};
  }
}

const store = await openStore(process.env.FATE_STORE ?? 'sqlite:./fate.db');
const fate = new Fate({
  store,
  env: {},
  steps: [{ type: 'ping', fromState: () => new Ping() }],
  workers: 8,
  meterProvider,
});
await fate.start();
await fate.seed(new Ping(), { opName: 'ping' });

export { exporter, fate, store };
