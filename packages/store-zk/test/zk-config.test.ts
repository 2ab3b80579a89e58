import { inspect } from 'node:util';
import { FateError, partitionRange } from '@fate/core';
import { createStoreBackend, createZkStore, parseZkUrl, resolveZkConfig } from '@fate/store-zk';
import { bucketsFor, MARKER_BUCKETS } from '@fate/store-zk/internal';
import { freePort } from '@fate/test-services';
import { describe, expect, it } from 'vitest';
import { rejection, syncRejection } from './zk-fixture.js';

const _step = (type = 's', state: unknown = {}) =>
  ({ type, state }) as { type: string; state: never };

describe('zk:// URLs and config', () => {
  it('parses the ensemble, the chroot and the timeouts', () => {
    expect(parseZkUrl('zk://127.0.0.1:2181/fate')).toEqual({
      connect: '127.0.0.1:2181',
      chroot: '/fate',
    });
    expect(
      parseZkUrl('zk://h1,h2:2182,[::1]:2183/a/b/?sessionTimeout=4000&operationTimeout=900'),
    ).toEqual({
      connect: 'h1:2181,h2:2182,[::1]:2183',
      chroot: '/a/b',
      sessionTimeoutMs: 4000,
      operationTimeoutMs: 900,
    });
    expect(parseZkUrl('ZK://zk.example.com').chroot).toBe('/fate');
    const config = resolveZkConfig(
      parseZkUrl('zk://h:1/x?connectTimeout=50&juteMaxBuffer=2000000'),
    );
    expect(config).toEqual({
      connect: 'h:1',
      chroot: '/x',
      sessionTimeoutMs: 10_000,
      connectTimeoutMs: 50,
      operationTimeoutMs: 5_000,
      juteMaxBuffer: 2_000_000,
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(createStoreBackend('zk://h:1/x').capabilities).toMatchObject({
      sortedScan: true,
      wakeups: true,
      multiProcess: true,
      maxRecordBytes: 1_048_575 - 48 * 1024,
    });
  });

  it.each([
    'zk://',
    'zk:///fate',
    'zk://h:0/x',
    'zk://h:65536/x',
    'zk://h:21a/x',
    'zk://h,,g/x',
    'zk://-h/x',
    'zk://h/a//b',
    'zk://h/a/../b',
    'zk://h/zookeeper/x',
    'zk://h/x?sessionTimeout=abc',
    'zk://h/x?sessionTimeout=0',
    'zk://h/x?timeout=5',
    'redis://h:6379',
    'zk:h:2181/x',
    '',
  ])('refuses %j with FATE_BAD_URL', (url) => {
    for (const fn of [() => parseZkUrl(url), () => createStoreBackend(url)]) {
      const err = syncRejection(fn);
      expect(err).toBeInstanceOf(FateError);
      expect(err.code).toBe('FATE_BAD_URL');
    }
  });

  it.each([
    'zk://h/a b',
    'zk://h/a%20b',
    'zk://h/fate/caf%C3%A9',
    'zk://h/café',
    'zk://h/a"b',
    "zk://h/it's",
    'zk://h/a\\b',
    'zk://h/a*',
    'zk://h/a+b',
    'zk://h/%2e%2e',
  ])('refuses the chroot of %j (awkward in ZooKeeper paths) with FATE_BAD_URL', (url) => {
    const err = syncRejection(() => parseZkUrl(url));
    expect(err.code).toBe('FATE_BAD_URL');
    expect(err.message).toMatch(/chroot path segment/);
    const chroot = url.slice('zk://h'.length);
    const typeErr = syncRejection(() => resolveZkConfig({ connect: 'h', chroot }));
    expect(typeErr).toBeInstanceOf(TypeError);
    expect(typeErr.code).toBe('FATE_INVALID_ARGUMENT');
  });

  it('says in every bad-URL error that a URL without a chroot stores under /fate', () => {
    expect(parseZkUrl('zk://h:2181').chroot).toBe('/fate');
    for (const url of ['zk://', 'zk://h/a b', 'zk://h/x?timeout=5']) {
      expect(syncRejection(() => parseZkUrl(url)).message).toMatch(
        /the chroot all data lives under, \/fate when the URL has none/,
      );
    }
    // the chroots that are fine: letters, digits and . _ : @ -
    expect(parseZkUrl('zk://h/app-1/fate_v2.prod:eu@x').chroot).toBe('/app-1/fate_v2.prod:eu@x');
  });

  it('refuses a malformed config object with a TypeError', () => {
    for (const bad of [
      undefined,
      {},
      { connect: 'h:99999' },
      { connect: 'h', chroot: 'rel' },
      { connect: 'h', sessionTimeoutMs: 0 },
    ]) {
      const err = syncRejection(() => resolveZkConfig(bad as never));
      expect(err).toBeInstanceOf(TypeError);
      expect(err.code).toBe('FATE_INVALID_ARGUMENT');
    }
  });

  it('lists exactly the buckets that can hold ids of a range', () => {
    expect(bucketsFor(undefined)).toHaveLength(256);
    const quarter = bucketsFor(partitionRange({ partition: 1, total: 4 }));
    expect(quarter).toHaveLength(64);
    expect([quarter[0], quarter.at(-1)]).toEqual(['40', '7f']);
    expect(bucketsFor({ start: '4a80', end: '4b' })).toEqual(['4a']);
    expect(bucketsFor({ start: '4a80', end: '4b000001' })).toEqual(['4a', '4b']);
    expect(bucketsFor({ end: '00000000' })).toEqual([]);
    expect(bucketsFor({ start: 'ff' })).toEqual(['ff']);
    // the runnable markers use 16 buckets: a full scan lists 16, partition 3 of 16 one
    expect(bucketsFor(undefined, MARKER_BUCKETS)).toHaveLength(16);
    expect(bucketsFor(partitionRange({ partition: 3, total: 16 }), MARKER_BUCKETS)).toEqual(['3']);
    expect(bucketsFor(partitionRange({ partition: 1, total: 4 }), MARKER_BUCKETS)).toEqual([
      '4',
      '5',
      '6',
      '7',
    ]);
  });

  it('fails promptly with FATE_STORE_UNAVAILABLE when no server answers', async () => {
    const port = await freePort();
    const started = Date.now();
    const err = await rejection(createZkStore(`zk://127.0.0.1:${port}/x?connectTimeout=500`));
    expect(err.code).toBe('FATE_STORE_UNAVAILABLE');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
  it('reads digest credentials from the URL (percent-decoded) or a file, never showing the password', () => {
    const parsed = parseZkUrl('zk://fate%40app:p%3Aw%2Fd@h:2181/app?worldRead=1');
    expect(parsed).toEqual({
      connect: 'h:2181',
      chroot: '/app',
      auth: 'fate@app:p:w/d',
      worldRead: true,
    });
    const { auth } = resolveZkConfig(parsed);
    expect(auth?.user).toBe('fate@app');
    expect(auth?.credentials()).toBe('fate@app:p:w/d');
    expect(auth?.acl().map((e) => `${e.scheme}:${e.perm}`)).toEqual(['digest:31', 'world:1']);
    const shown = `${JSON.stringify(resolveZkConfig(parsed))} ${String(auth)} ${inspect(auth)}`;
    expect(shown).not.toContain('p:w/d');
    expect(parseZkUrl('zk://h/x?authFile=%2Frun%2Fs')).toMatchObject({ authFile: '/run/s' });
    expect(resolveZkConfig({ connect: 'h' }).auth).toBeUndefined();
    for (const bad of [
      'zk://user@h/x',
      'zk://:pw@h/x',
      'zk://u:@h/x',
      'zk://u:pw@h/x?authFile=/f',
      'zk://h/x?worldRead=1',
      'zk://h/x?worldRead=yes',
      'zk://u:p%zz@h/x',
    ]) {
      const err = syncRejection(() => parseZkUrl(bad));
      expect(err.code, bad).toBe('FATE_BAD_URL');
      expect(err.message, bad).not.toMatch(/:pw@|p%zz/);
    }
    const missing = syncRejection(() =>
      resolveZkConfig({ connect: 'h', authFile: '/nonexistent/f' }),
    );
    expect(missing.code).toBe('FATE_STORE_CONFIG');
  });
});
