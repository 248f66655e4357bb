/**
 * What the confirmation suites (confirmation.test.ts, confirmation-attacks.test.ts) share: a
 * person's browser here and at the upstream, an account made through "Test OP", "Confirm with
 * <name>", a first password, and the answers' words.
 */
import { expect } from 'vitest';
import { NO_PASSWORD, type UserRecord } from '../../src/domain/users.js';
import { Agent, type TestServer } from '../helpers.js';
import { signInAtUpstreamOverHttp } from '../upstream-provider.js';

export const SECRET = 'upstream-client-secret-for-confirmation';
export const CONFIRM_FIRST = { message: 'Confirm it is you first, through an account linked to yours or with a passkey' };
export const PASSWORD_REQUIRED = { message: 'Body field password is required' };

/** One person's browser: its session here, and its cookies at the upstream (its session there). */
export interface Browser {
  agent: Agent;
  jar: Map<string, string>;
}

/** An answer's status and body (text for a 204, else JSON). */
export const body = async (res: Response): Promise<unknown> => [res.status, res.status === 204 ? await res.text() : await res.json()];

/** The sign-in page's reason, as shown. */
export async function reasonOf(res: Response): Promise<string | undefined> {
  return /<p class="error" id="error-message">([^<]*)<\/p>/.exec(await res.text())?.[1];
}

/** A new account made through Test OP by `login` there (no password), signed in in a new browser. */
export async function upstreamAccountOn(t: TestServer, login: string, name: string): Promise<Browser & { user: UserRecord }> {
  const b: Browser = { agent: new Agent(t), jar: new Map() };
  const started = await b.agent.form('/signin/upstream/test-op', {});
  const back = await signInAtUpstreamOverHttp(started.headers.get('location')!, login, b.jar);
  expect((await b.agent.fetch(back.pathname + back.search)).headers.get('location')).toBe('/signup/upstream');
  expect((await b.agent.form('/signup/upstream', { name })).status).toBe(303);
  const user = (await t.store.users.getUserByName(name))!;
  expect(user.passwordHash).toBe(NO_PASSWORD);
  return { ...b, user };
}

/**
 * Presses "Confirm with <slug>" on the account page, signs in at the upstream as `login` (the
 * upstream asks, its session notwithstanding) and comes back: what the upstream was sent, the
 * forms it showed, and the callback's answer here.
 */
export async function confirmThrough(b: Browser, slug: string, login: string): Promise<{ sent: URL; forms: string[]; answer: Response }> {
  const started = await b.agent.form(`/signin/upstream/${slug}`, { confirm: 'true', return_to: '/account#password' });
  expect(started.status, await started.clone().text()).toBe(303);
  const sent = new URL(started.headers.get('location')!);
  const forms: string[] = [];
  const back = await signInAtUpstreamOverHttp(sent.href, login, b.jar, forms);
  return { sent, forms, answer: await b.agent.fetch(back.pathname + back.search) };
}

/** setFirstPassword from `b`'s session. */
export const firstPassword = (b: Browser, password = 'my first password') => b.agent.json('POST', '/api/account/first-password', { new_password: password });
