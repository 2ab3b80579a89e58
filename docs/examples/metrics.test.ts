// Runs the README's metrics example and scrapes its /metrics endpoint as Prometheus would.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { expect, it } from 'vitest';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

it('serves the engine metrics on /metrics for Prometheus', async () => {
  const port = await freePort();
  process.env.METRICS_PORT = String(port);
  process.env.FATE_STORE = `memory:${randomUUID()}`;
  const { exporter, fate, store } = await import('./metrics.js');
  try {
    let text = '';
    for (let i = 0; i < 100 && !/fate_steps_completed_total\{[^}]*\} 1/.test(text); i++) {
      await new Promise((r) => setTimeout(r, 50));
      text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    }
    for (const name of [
      'fate_steps_started_total',
      'fate_steps_completed_total',
      'fate_step_duration_bucket',
      'fate_scan_items_total',
      'fate_workers',
      'fate_queue_size',
      'fate_transactions_finished_total',
    ]) {
      expect(text, name).toContain(name);
    }
    expect(text).toMatch(/fate_steps_started_total\{[^}]*fate_step_type="ping"[^}]*\} 1/);
    expect(text).toMatch(/fate_workers\{[^}]*fate_state="idle"[^}]*\} \d/);
    expect(text).toMatch(/fate_transactions\{[^}]*fate_status="SUCCESSFUL"[^}]*\} 1/);
  } finally {
    await fate.shutdown();
    await store.close();
    await exporter.shutdown();
  }
});
