/** SESSION_SECRET with several keys: the first signs, every one verifies, so a key rotates in place. */
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, makeUser, startServer, type TestServer } from '../helpers.js';

const OLD = 'o'.repeat(40);
const NEW = 'n'.repeat(40);

const servers: TestServer[] = [];
afterEach(async () => {
  // The first server owns the database (its close drops it): close it last.
  for (const s of servers.splice(0).reverse()) await s.close();
});

async function sessionOf(t: TestServer, agent: Agent): Promise<unknown> {
  const res = await fetch(`${t.baseUrl}/api/session`, { headers: { Cookie: agent.cookieHeader() } });
  return ((await res.json()) as { signed_in: boolean }).signed_in;
}

describe('SESSION_SECRET rotation', () => {
  it('keeps sessions signed with the old key while a new first key signs new cookies', async () => {
    const before = await startServer({ SESSION_SECRET: OLD });
    servers.push(before);
    const user = await makeUser(before);
    const agent = new Agent(before);
    await agent.signIn(user);
    const shared = { DATABASE_URL: before.config.databaseUrl };

    const rotated = await startServer({ ...shared, SESSION_SECRET: `${NEW},${OLD}` });
    servers.push(rotated);
    expect(await sessionOf(rotated, agent)).toBe(true);

    // A cookie the rotated service signs verifies under the new key alone.
    const fresh = new Agent(rotated);
    await fresh.signIn(user);
    const newOnly = await startServer({ ...shared, SESSION_SECRET: NEW });
    servers.push(newOnly);
    expect(await sessionOf(newOnly, fresh)).toBe(true);
    // Once the old key is dropped, cookies signed with it are no longer believed.
    expect(await sessionOf(newOnly, agent)).toBe(false);
  });
});
