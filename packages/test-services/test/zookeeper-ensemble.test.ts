import { startZooKeeperEnsemble, type ZooKeeperEnsemble } from '@fate/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';

let ensemble: ZooKeeperEnsemble;

beforeAll(async () => {
  ensemble = await startZooKeeperEnsemble();
});

afterAll(async () => {
  await ensemble?.stop();
});

const modes = () => Promise.all(ensemble.servers.map((s) => ensemble.mode(s.id)));

it('serves on three client ports with exactly one leader', async () => {
  expect(ensemble.servers).toHaveLength(3);
  expect(ensemble.url).toBe(`zk://${ensemble.connect}`);
  expect(ensemble.connect.split(',')).toEqual(
    ensemble.servers.map((s) => `127.0.0.1:${s.clientPort}`),
  );
  expect((await modes()).sort()).toEqual(['follower', 'follower', 'leader']);
});

it('elects a new leader when the leader is SIGKILLed, and takes the old one back as a follower', async () => {
  const old = await ensemble.leader();
  const killedAt = Date.now();
  await ensemble.kill(old);
  const next = await ensemble.leader(20_000);
  const electionMs = Date.now() - killedAt;
  expect(next).not.toBe(old);
  expect(await ensemble.mode(old)).toBeUndefined();

  const restartAt = Date.now();
  await ensemble.restart(old);
  const rejoinMs = Date.now() - restartAt;
  expect(await ensemble.mode(old)).toBe('follower');
  // the new leader kept its place: a rejoining server does not force an election
  expect(await ensemble.leader()).toBe(next);
  expect((await modes()).sort()).toEqual(['follower', 'follower', 'leader']);
  console.log(
    `ZooKeeper ensemble: leader ${old} SIGKILLed, server ${next} led after ${electionMs} ms; ${old} rejoined as a follower ${rejoinMs} ms after its restart`,
  );
});
