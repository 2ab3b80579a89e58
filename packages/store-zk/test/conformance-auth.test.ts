import {
  type ConformanceTarget,
  runEngineConformance,
  runStoreConformance,
} from '@fate/conformance';
import { startZooKeeper, type TestService } from '@fate/test-services';
import { afterAll, beforeAll } from 'vitest';
import { zkFixture } from './zk-fixture.js';

// Both suites, unchanged, with every client authenticated (digest) and every node the
// store creates restricted to that identity by its ACL.
let service: TestService | undefined;

beforeAll(async () => {
  service = await startZooKeeper();
});

afterAll(async () => {
  await service?.stop();
});

const zookeeper: ConformanceTarget = {
  name: 'zookeeper with digest auth and ACLs',
  factory: async () => {
    if (!service) throw new Error('ZooKeeper did not start');
    return zkFixture(service.url, 'fate-suite:p@ss:w/rd%');
  },
};

runStoreConformance(zookeeper);
runEngineConformance(zookeeper);
