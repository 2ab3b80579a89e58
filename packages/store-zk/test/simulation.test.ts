import { runSimulationSuite } from '@fate/conformance/simulation';
import { startZooKeeper } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { zkFixture } from './zk-fixture.js';

// One ZooKeeper for the file; every run gets its own chroot on it.
const zookeeper = useService(() => startZooKeeper());

runSimulationSuite({
  name: 'zookeeper',
  factory: async () => zkFixture((await zookeeper()).url),
});
