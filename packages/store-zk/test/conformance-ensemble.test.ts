import { runEngineConformance, runStoreConformance } from '@fate/conformance';
import { startZooKeeperEnsemble, type ZooKeeperEnsemble } from '@fate/test-services';
import { afterAll, beforeAll } from 'vitest';
import { zkFixture } from './zk-fixture.js';

// Both suites, unchanged, on a three-server ensemble: every client's connect string names
// all three servers, so sessions land on followers and the leader alike and every write
// goes through the ensemble's quorum. Losing the leader is zk-ensemble.test.ts's business.
let ensemble: Promise<ZooKeeperEnsemble> | undefined;
const zookeeperEnsemble = () => {
  ensemble ??= startZooKeeperEnsemble();
  return ensemble;
};

beforeAll(async () => {
  await zookeeperEnsemble();
});

afterAll(async () => {
  await (await ensemble)?.stop();
});

const target = {
  name: 'zookeeper-ensemble',
  factory: async () => zkFixture((await zookeeperEnsemble()).url),
};
runStoreConformance(target);
runEngineConformance(target);
