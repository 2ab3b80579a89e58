import { runSimulationSuite } from '@fate/conformance/simulation';
import { startRedis } from '@fate/test-services';
import { afterAll } from 'vitest';
import { redisFixture } from './redis-fixture.js';

// One private Redis for the file; every run gets its own key prefix in it.
let service: ReturnType<typeof startRedis> | undefined;

afterAll(async () => {
  await (await service)?.stop();
});

runSimulationSuite(
  {
    name: 'redis',
    factory: async () => {
      service ??= startRedis();
      return redisFixture((await service).url);
    },
    // two runs: one took ~14 s here, against 4-12 s on the other stores
  },
  { seeds: 2 },
);
