/**
 * The property suites' seed (test/hostile/corpus.ts): a failure says how to replay it, and the
 * seed and path it names do replay it. Without this a red run of the hostile suites could not be
 * reproduced.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertWithSeed, caseFor, operations, SEED, seedOf, type Case } from './corpus.js';

const op = operations.find((o) => o.operationId === 'exchangeToken')!;
/** A failure that depends on the case only, so fast-check shrinks it to one counterexample. */
const fails = (c: Case): boolean => c.headers.length + c.query.length >= 2;

async function failure(path?: string): Promise<{ message: string; cases: Case[] }> {
  const cases: Case[] = [];
  let message = '';
  await assertWithSeed(
    fc.asyncProperty(caseFor(op), async (c) => {
      cases.push(c);
      if (fails(c)) throw new Error('boom');
    }),
    op.operationId,
    200,
    path,
  ).catch((err: Error) => {
    message = err.message;
  });
  return { message, cases };
}

describe('hostile suites: seed printed on failure and replayable', () => {
  it('a failure starts with the seed and the command that replays it', async () => {
    const { message } = await failure();
    expect(message.split('\n')[0]).toBe(
      `replay: FC_SEED=${SEED} npx vitest run <this file> -t exchangeToken (add FC_PATH=<path from the report> for the exact case)`,
    );
    expect(message).toContain(`seed: ${SEED}, path: "`);
  });

  it('the same seed generates the same cases', () => {
    const a = fc.sample(caseFor(op), { seed: SEED, numRuns: 10 });
    const b = fc.sample(caseFor(op), { seed: SEED, numRuns: 10 });
    expect(b).toEqual(a);
  });

  it('the path the failure names replays exactly its shrunk counterexample, first', async () => {
    const first = await failure();
    const path = /path: "([^"]+)"/.exec(first.message)?.[1];
    expect(path).toBeDefined();
    const shrunk = first.cases.filter(fails).at(-1);
    const replay = await failure(path);
    expect(replay.cases[0]).toEqual(shrunk);
    expect(replay.message.split('\n')[0]).toBe(first.message.split('\n')[0]);
  });

  it('FC_SEED must be an integer: anything else stops the run instead of silently picking a random seed', () => {
    expect(seedOf('12345')).toBe(12345);
    expect(seedOf('-7')).toBe(-7);
    expect(Number.isInteger(seedOf(undefined))).toBe(true);
    expect(() => seedOf('abc')).toThrow('FC_SEED must be an integer, got "abc"');
    expect(() => seedOf('1.5')).toThrow('FC_SEED must be an integer, got "1.5"');
  });
});
