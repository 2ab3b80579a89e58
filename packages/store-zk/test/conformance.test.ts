import { runStoreConformance } from '@fate/conformance';
import { startZooKeeper } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { zkFixture } from './zk-fixture.js';

// The store suite without credentials, one ZooKeeper for this file; every fixture gets its
// own chroot on it. Both suites run with digest credentials and ACLs (conformance-auth).
const zookeeper = useService(() => startZooKeeper());

runStoreConformance({ name: 'zookeeper', factory: async () => zkFixture((await zookeeper()).url) });
