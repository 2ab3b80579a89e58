// One engine process for `--mode scale`: drains the store's runnable work for at most
// `seconds` and reports its throughput and the most RSS it used (sampled every 100 ms).
// Arguments: store URL, seconds.
import { Fate, openStore } from '@fate/core';
import { BENCH_STEPS, type BenchEnv } from '../../processes/steps.js';

const [url = '', seconds = '20'] = process.argv.slice(2);
let maxRss = process.memoryUsage().rss;
const sampler = setInterval(() => {
  maxRss = Math.max(maxRss, process.memoryUsage().rss);
}, 100);
const store = await openStore(url, { instanceId: 'scale-engine' });
let finished = 0;
const fate = new Fate<BenchEnv>({
  store,
  env: { onCall: () => undefined },
  steps: BENCH_STEPS,
  workers: 8,
  onEvent: (type) => {
    if (type === 'finished') finished++;
  },
});
const rssAtStart = process.memoryUsage().rss;
const started = performance.now();
await fate.start();
await new Promise((r) => setTimeout(r, Number(seconds) * 1_000));
const ms = performance.now() - started;
await fate.shutdown(1_000);
await store.close();
clearInterval(sampler);
const mb = (b: number) => Math.round(b / 1_048_576);
process.stdout.write(
  `${JSON.stringify({ finished, ms: Math.round(ms), rssStartMb: mb(rssAtStart), rssMaxMb: mb(maxRss) })}\n`,
);
process.exit(0);
