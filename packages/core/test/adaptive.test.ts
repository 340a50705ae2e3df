/**
 * AdaptiveLimit against a simulated account limit: the client starts jobs up
 * to its limit, the service takes them while it holds fewer than its limit
 * and refuses the rest (as the emulator's --account-jobs does), and one job
 * finishes per step. Refusals are counted where the service counts them.
 */
import { describe, expect, it } from 'vitest';
import { AdaptiveLimit } from '../src/index';

/** Runs `jobs` jobs through a service that holds at most `accountLimit`; the refusals after the limit first reached it. */
function simulate(limit: AdaptiveLimit, accountLimit: number, jobs: number): { refusals: number; refusalsAfterSettling: number; limits: number[] } {
  let held = 0; // jobs the service accepted and has not finished (the client sees them end at once here)
  let done = 0;
  let refusals = 0;
  let settledAt: number | undefined;
  const limits: number[] = [];
  while (done < jobs) {
    // Start jobs up to the limit; the service refuses what is over its own.
    while (held < limit.current && done + held < jobs) {
      if (held < accountLimit) held++;
      else {
        refusals++;
        limit.refused(held);
      }
    }
    if (settledAt === undefined && limit.current === accountLimit) settledAt = refusals;
    // One job ends; the client held its whole limit if it had as many jobs out as allowed.
    const atLimit = held >= limit.current;
    held--;
    done++;
    limit.finished(atLimit);
    limits.push(limit.current);
  }
  return { refusals, refusalsAfterSettling: refusals - (settledAt ?? refusals), limits };
}

describe('AdaptiveLimit.refused', () => {
  it('drops to the jobs the service holds, not below', () => {
    const limit = new AdaptiveLimit({ max: 8 });
    limit.refused(5);
    expect(limit.current).toBe(5);
    limit.refused(7); // never up
    expect(limit.current).toBe(5);
    limit.refused(0); // never below min
    expect(limit.current).toBe(1);
    expect(limit.changes.map((c) => [c.limit, c.why])).toEqual([[5, 'refused'], [1, 'refused']]);
  });

  it('settles at an account limit of 2 from 8 and refuses only a few probes in 300 jobs', () => {
    const limit = new AdaptiveLimit({ max: 8 });
    const r = simulate(limit, 2, 300);
    expect(limit.current).toBe(2);
    // Within the first wave it is at 2; then every probe of 3 is refused once, ever more rarely (4, 8, 16, 32, 64 rounds).
    expect(r.limits.slice(0, 2)).toEqual([2, 2]);
    expect(r.refusalsAfterSettling).toBeLessThanOrEqual(6);
    expect(r.limits.filter((l) => l === 2).length).toBeGreaterThan(0.95 * r.limits.length);
  });

  it('probes a refused level again after clean rounds, and climbs when the account allows more', () => {
    const limit = new AdaptiveLimit({ max: 8, probeRounds: 2 });
    simulate(limit, 2, 40);
    expect(limit.current).toBe(2);
    // The account's limit is raised: the client finds 5 and stays there.
    const r = simulate(limit, 5, 400);
    expect(limit.current).toBe(5);
    expect(r.limits.at(-1)).toBe(5);
  });

  it('forgets a refusal at a level it then held for a whole round (a passing fault)', () => {
    const limit = new AdaptiveLimit({ max: 4, probeRounds: 8 });
    const roundsToLeave = (level: number) => {
      let n = 0;
      while (limit.current === level) {
        for (let i = 0; i < level; i++) limit.finished();
        n++;
      }
      return n;
    };
    limit.refused(1); // a one-off 429 while one job was out: 2 is probed after 8 clean rounds
    expect(roundsToLeave(1)).toBe(8);
    expect(roundsToLeave(2)).toBe(1); // a clean round at 2: 2 was fine after all
    limit.refused(1); // another one-off: 2 was forgotten, so 8 rounds again, not 16
    expect(roundsToLeave(1)).toBe(8);
    limit.refused(1); // the probe of 2 refused before a clean round there: twice as long
    expect(roundsToLeave(1)).toBe(16);
  });
});
