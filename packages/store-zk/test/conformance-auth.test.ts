import { runConformance } from '@fate/conformance';
import { startZooKeeper } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { zkFixture } from './zk-fixture.js';

// Both suites, unchanged, with every client authenticated (digest) and every node the store
// creates restricted to that identity by its ACL: the deployment the README recommends.
// The unauthenticated connection (conformance.test.ts) runs the store suite.
const zookeeper = useService(() => startZooKeeper());

runConformance({
  name: 'zookeeper with digest auth and ACLs',
  factory: async () => zkFixture((await zookeeper()).url, 'fate-suite:p@ss:w/rd%'),
});
