import { runConformance } from '@fate/conformance';
import { sqliteFixture } from './sqlite-fixture.js';

runConformance({ name: 'sqlite', factory: async () => sqliteFixture() });
