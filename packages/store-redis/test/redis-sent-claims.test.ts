import { describe, expect, it } from 'vitest';
import { SentClaims } from '../src/redis-sent-claims.js';

const claim = (...uuids: string[]) => uuids.map((uuid) => ({ lockId: 'e@1', uuid }));

// A claim's reservations carry fresh uuids; the same first uuid again is the guard's repeat
// after a lost reply, which a sharded store answers from what its shards already hold.
describe('redis backend: SentClaims', () => {
  it('tells a repeat by its first uuid', () => {
    const sent = new SentClaims();
    expect(sent.repeated(claim('a', 'b'))).toBe(false);
    expect(sent.repeated(claim('c'))).toBe(false);
    expect(sent.repeated(claim('a', 'b'))).toBe(true);
    expect(sent.repeated(claim('b', 'a'))).toBe(false); // another first uuid: another call
  });

  it('remembers the last 1,000 claims, forgetting the oldest first', () => {
    const sent = new SentClaims();
    for (let i = 0; i <= 1_000; i++) sent.repeated(claim(`u${i}`));
    expect(sent.repeated(claim('u1000'))).toBe(true);
    expect(sent.repeated(claim('u2'))).toBe(true);
    expect(sent.repeated(claim('u0'))).toBe(false); // forgotten when the 1,001st came
  });
});
