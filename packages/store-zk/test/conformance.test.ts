import { runConformance } from '@fate/conformance';
import { startZooKeeper } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { zkFixture } from './zk-fixture.js';

// One ZooKeeper for this file; every fixture gets its own chroot on it.
const zookeeper = useService(() => startZooKeeper());

runConformance({ name: 'zookeeper', factory: async () => zkFixture((await zookeeper()).url) });
