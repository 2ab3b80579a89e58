import { runEngineConformance, runStoreConformance } from '@fate/conformance';
import { sqliteFixture } from './sqlite-fixture.js';

runStoreConformance({ name: 'sqlite', factory: async () => sqliteFixture() });
runEngineConformance({ name: 'sqlite', factory: async () => sqliteFixture() });
