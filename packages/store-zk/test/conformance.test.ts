import {
  type ConformanceTarget,
  runEngineConformance,
  runStoreConformance,
} from '@fate/conformance';
import { startZooKeeper, type TestService } from '@fate/test-services';
import { afterAll, beforeAll } from 'vitest';
import { zkFixture } from './zk-fixture.js';

// One ZooKeeper for this file; every fixture gets its own chroot on it. The suites are
// declared synchronously, so the service's URL is read inside the factory.
let service: TestService | undefined;

beforeAll(async () => {
  service = await startZooKeeper();
});

afterAll(async () => {
  await service?.stop();
});

const zookeeper: ConformanceTarget = {
  name: 'zookeeper',
  factory: async () => {
    if (!service) throw new Error('ZooKeeper did not start');
    return zkFixture(service.url);
  },
};

runStoreConformance(zookeeper);
runEngineConformance(zookeeper);
