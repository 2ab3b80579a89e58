import { runSimulationSuite } from '@fate/conformance/simulation';
import { startZooKeeper, type TestService } from '@fate/test-services';
import { afterAll } from 'vitest';
import { zkFixture } from './zk-fixture.js';

// One ZooKeeper for the file; every run gets its own chroot on it.
let service: Promise<TestService> | undefined;

afterAll(async () => {
  await (await service)?.stop();
});

runSimulationSuite({
  name: 'zookeeper',
  factory: async () => {
    service ??= startZooKeeper();
    return zkFixture((await service).url);
  },
});
