/**
 * Return paths (src/security/return-paths.ts; docs/account.md#return-paths): the one function that
 * decides every local redirect target, fed the URL parser's edge cases (fast-check, FC_RUNS and
 * FC_SEED as in test/hostile/corpus.ts); then every route that takes a `return_to`, or reads one
 * back from the session, answering a value that only looks like a path on this service. The
 * browser's side (a passkey sign-in that must not leave the service) is
 * test/browser/return-paths.test.ts.
 */
import fc from 'fast-check';
import { URI, type TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/security/secrets.js';
import { localPath, RETURN_TO_MAX } from '../../src/security/return-paths.js';
import { addUpstream } from '../../src/upstreams/upstreams.js';
import { SoftAuthenticator } from '../fixtures/soft-authenticator.js';
import { Agent, makeUser, signedInAgent, startServer, TEST_PASSWORD, type TestServer } from '../helpers.js';
import { RUNS, SEED } from '../hostile/corpus.js';
import { signInAtUpstreamOverHttp, startUpstreamProvider, type UpstreamProvider } from '../upstream-provider.js';

const BASE = 'http://localhost:3000';
/** PUBLIC_URL as config.ts leaves it: an origin, with a path or without. */
const BASES = [BASE, 'https://id.example.com', 'https://id.example.com/idp'];

/** The values of the report, each of which a browser reads as another site. */
const OFFSITE = ['/\t/evil.example/', '/\n/evil.example', '/\r/evil.example', '/\r\n/evil.example', '\\/evil.example', '/\\evil.example', '//evil.example', '///evil.example', 'https:evil.example', 'https://evil.example/', 'javascript:alert(1)', ' //evil.example', '/.//evil.example', '/a/..//evil.example'];

describe('localPath', () => {
  it('keeps a path on the service as the URL parser writes it', () => {
    const kept: [string, string][] = [
      ['/account', '/account'],
      ['/oauth?client_id=Xw3Ah1pX9kA&redirect_uri=https%3A%2F%2Fchess.example%2Fcallback&scope=userinfo', '/oauth?client_id=Xw3Ah1pX9kA&redirect_uri=https%3A%2F%2Fchess.example%2Fcallback&scope=userinfo'],
      ['/apps?x=1#top', '/apps?x=1#top'],
      ['/a/../apps', '/apps'],
      ['/%09/evil.example/', '/%09/evil.example/'],
      ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
      ['/ü', '/%C3%BC'],
      ["/oauth?state=it's", '/oauth?state=it%27s'],
      ['http://localhost:3000/games', '/games'],
      ['HTTP://LOCALHOST:3000/games', '/games'],
      ['http:games', '/games'],
      ['games', '/games'],
      ['?x=1', '/?x=1'],
    ];
    for (const [raw, path] of kept) expect([raw, localPath(raw, BASE)]).toEqual([raw, path]);
  });

  it('refuses what is not a string, empty, over RETURN_TO_MAX, holds a control character or a backslash, or leads off the origin', () => {
    const refused: unknown[] = [
      undefined, null, 42, ['/account'], { toString: () => '/account' }, '',
      `/${'a'.repeat(RETURN_TO_MAX)}`,
      // Within the limit as sent, over it once written as the parser writes it (é is %C3%A9).
      `/${'é'.repeat(RETURN_TO_MAX / 2)}`,
      '/a\u0000', '/a\u001f', '/a\u007f', '/a\tb', '/account\n',
      ...OFFSITE,
      'http://localhost:3001/account', 'https://localhost:3000/account', 'http://127.0.0.1:3000/account', 'data:text/html,hi', 'blob:http://localhost:3000/x',
    ];
    for (const raw of refused) expect([raw, localPath(raw, BASE)]).toEqual([raw, undefined]);
  });

  it('keeps the longest value it allows: RETURN_TO_MAX characters already written as the parser writes them', () => {
    const longest = `/${'a'.repeat(RETURN_TO_MAX - 1)}`;
    expect(localPath(longest, BASE)).toBe(longest);
  });

  /** Pieces of the URL parser's edge cases, joined at random. */
  const piece = fc.constantFrom(
    '/', '//', '///', '\\', '/\\', '\\/', '\t', '\n', '\r', '\r\n', ' ', '\u0000', '\u001f', '\u007f', '\u0085', '\u00a0', '\u2028', '\ufeff', '\u202e',
    '%09', '%0a', '%0D', '%2f', '%2F', '%5c', '%5C', '%2e', '%2E%2E', '%', '.', '..', './', '../', '@', ':', ';', '?', '#', '&', '=',
    'evil.example', 'localhost', 'localhost:3000', ':3000', 'id.example.com', '127.0.0.1', '[::1]', '0x7f.1', 'user:pass@', 'xn--e1afmkfd',
    'http:', 'https:', 'HTTP:', 'javascript:', 'JaVaScRiPt:', 'data:', 'blob:', 'file:', 'mailto:', 'alert(1)', 'blob:http://localhost:3000', 'blob:https://id.example.com',
    'http://localhost:3000', 'https://id.example.com', 'https://id.example.com/idp',
    '\u3002', '\uff0e', '\uff0f', '\uff3c', '\u2215', '\u2044', '\u29f8', 'ｅｖｉｌ', 'é', '💥', '\ud800',
  );
  const joined = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(''));
  const raw = fc.oneof(
    joined,
    fc.tuple(fc.constantFrom('/\t/', '/\n/', '/\r/', '\\/', '/\\', '/%09/', 'https:', 'http:', '//', '///', ' //', '/.//', '/a/..//', 'javascript:'), joined).map(([a, b]) => a + b),
    fc.string({ unit: fc.constantFrom('/', '\\', '.', '\t', '\n', ':', '@', 'e', '%', '2', 'f', '?', '#', ' '), maxLength: 16 }),
    fc.string({ unit: 'binary', maxLength: 24 }),
    fc.webUrl({ withQueryParameters: true, withFragments: true }),
    fc.tuple(fc.webPath(), fc.webQueryParameters(), fc.webFragments()).map(([path, query, hash]) => `${path}?${query}#${hash}`),
  );
  /** As a browser reads an address: TAB, CR and LF removed wherever they are, then parsed against the page. */
  const asBrowser = (value: string, base: string): URL => new URL(value.replace(/[\t\n\r]/g, ''), base);

  it(`whatever it keeps stays on PUBLIC_URL's origin, read as the parser reads it and as a browser does (${RUNS * 10} cases, seed ${SEED})`, () => {
    fc.assert(
      fc.property(raw, fc.constantFrom(...BASES), (value, base) => {
        const result = localPath(value, base);
        if (result === undefined) return;
        const origin = new URL(base).origin;
        expect(result.startsWith('/') && !result.startsWith('//')).toBe(true);
        expect(new URL(result, base).origin).toBe(origin);
        expect(asBrowser(result, base).origin).toBe(origin);
        // From any page of the service, too (a script's location.assign, a link).
        expect(asBrowser(result, `${origin}/signin/upstream/x/callback?y=1`).origin).toBe(origin);
        // What was sent was itself a path on the service, as a browser reads it.
        expect(asBrowser(value, base).origin).toBe(origin);
        // Written as the parser writes it: checked again, it is the same.
        expect(localPath(result, base)).toBe(result);
      }),
      { numRuns: RUNS * 10, seed: SEED },
    );
  });

  it(`keeps every path that is one, as the parser writes it (${RUNS * 10} cases, seed ${SEED})`, () => {
    fc.assert(
      fc.property(fc.webPath(), fc.webQueryParameters(), fc.webFragments(), fc.constantFrom(...BASES), (path, query, hash, base) => {
        const value = `/${path.replace(/^\/+/, '')}?${query}#${hash}`;
        const parsed = new URL(value, base);
        const expected = `${parsed.pathname}${parsed.search}${parsed.hash}`;
        expect(localPath(value, base)).toBe(expected.startsWith('//') ? undefined : expected);
      }),
      { numRuns: RUNS * 10, seed: SEED },
    );
  });
});

// ---- every route that takes a return_to -------------------------------------------------------

let t: TestServer;
let op: UpstreamProvider;
const CLIENT = { client_id: 'identity-service', client_secret: 'upstream-client-secret-for-tests' };
/** The value of the issue: `/` TAB `/evil.example/`, which a browser reads as //evil.example/. */
const TAB = '/\t/evil.example/';

beforeAll(async () => {
  t = await startServer({}, { limits: { signInIp: { points: 1000, seconds: 600 } } });
  t.config.publicUrl = t.baseUrl;
  op = await startUpstreamProvider({
    clients: [{ ...CLIENT, redirect_uris: [`${t.baseUrl}/signin/upstream/test-op/callback`] }],
    accounts: { ada: { sub: 'op-ada', email: 'ada-return@op.example', email_verified: true, preferred_username: 'ada' } },
  });
  await addUpstream({ store: t.store, now: t.clock.now, secrets: t.config.sessionSecrets }, { name: 'Test OP', source: { issuer: op.issuer }, clientId: CLIENT.client_id, clientSecret: CLIENT.client_secret });
});
afterAll(async () => {
  await op?.close();
  await t?.close();
});

/** Changes what the agent's session holds, as a session written before the check would hold it. */
async function rewriteSession(agent: Agent, change: (data: Record<string, unknown>) => void): Promise<void> {
  const idHash = hashSecret(agent.cookies.get('idp.sid')!);
  const data = JSON.parse((await t.store.sessions.getSession(idHash, t.clock.now()))!) as Record<string, unknown>;
  change(data);
  await t.store.sessions.setSession(idHash, JSON.stringify(data), t.clock.now() + 60 * 60 * 1000, null);
}

const located = (res: Response): [number, string | null] => [res.status, res.headers.get('location')];

describe('every route that takes a return_to', () => {
  it('the sign-in and sign-up pages drop an off-site one: no hidden field, no return_to on their links', async () => {
    for (const page of ['/signin', '/signup']) {
      for (const value of OFFSITE) {
        const res = await new Agent(t).fetch(`${page}?return_to=${encodeURIComponent(value)}`);
        expect(res.status).toBe(200);
        const html = await res.text();
        expect([value, html.includes('name="return_to"'), html.includes('return_to=')]).toEqual([value, false, false]);
      }
    }
    const kept = await (await new Agent(t).fetch(`/signin?return_to=${encodeURIComponent('/a/../apps?x=1')}`)).text();
    expect(kept).toContain('<input type="hidden" name="return_to" value="/apps?x=1">');
    expect(kept).toContain('<a href="/signup?return_to=%2Fapps%3Fx%3D1">Sign up</a>');
  });

  it('a signed-in person at /signin or /signup goes to the account page instead', async () => {
    const { agent } = await signedInAgent(t);
    for (const page of ['/signin', '/signup']) {
      expect(located(await agent.fetch(`${page}?return_to=${encodeURIComponent(TAB)}`))).toEqual([303, '/account']);
      expect(located(await agent.fetch(`${page}?return_to=${encodeURIComponent('/a/../games')}`))).toEqual([303, '/games']);
    }
  });

  it('a password sign-in goes to the account page, and the sign-up page links to a plain sign-in', async () => {
    const user = await makeUser(t);
    for (const value of OFFSITE) {
      const res = await new Agent(t).form('/signin', { name: user.name, password: TEST_PASSWORD, return_to: value });
      expect([value, ...located(res)]).toEqual([value, 303, '/account']);
    }
    const sent = await new Agent(t).form('/signup', { name: 'return_tab', email: 'return-tab@example.com', password: 'a long password', return_to: TAB });
    expect(sent.status).toBe(200);
    expect(await sent.text()).toContain('<p>Then <a href="/signin" id="sign-in-link">sign in</a> with the name and password you chose.</p>');
  });

  it('a passkey sign-in names only a checked path: /account for an off-site one', async () => {
    const { agent } = await signedInAgent(t);
    const url = new URL(t.config.publicUrl);
    const key = new SoftAuthenticator({ rpId: url.hostname, origin: url.origin });
    const options = (await (await agent.json('POST', '/api/account/passkeys/options', { password: TEST_PASSWORD })).json()) as { challenge: string; user: { id: string } };
    expect((await agent.json('POST', '/api/account/passkeys', { credential: key.register(options) })).status).toBe(201);
    for (const [value, redirect] of [...OFFSITE.map((v) => [v, '/account']), ['/a/../games?x=1', '/games?x=1']] as [string, string][]) {
      const visitor = new Agent(t);
      const asked = (await (await visitor.json('POST', '/api/session/passkey/options')).json()) as { challenge: string; user: { id: string } };
      const res = await visitor.json('POST', '/api/session/passkey', { credential: key.authenticate(asked), return_to: value });
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect([value, res.status, await res.json()]).toEqual([value, 200, { redirect }]);
    }
  });

  it('signing out goes home', async () => {
    for (const value of OFFSITE) {
      const { agent } = await signedInAgent(t);
      const res = await agent.fetch(`/signout?return_to=${encodeURIComponent(value)}`, { method: 'POST', headers: { 'X-CSRF-Token': await agent.csrf() } });
      expect([value, ...located(res)]).toEqual([value, 303, '/']);
    }
  });

  it('the "check your mail" page after a new verification link continues to the account page', async () => {
    const user = await makeUser(t, undefined, { verified: false });
    const agent = new Agent(t);
    await agent.signIn(user);
    const res = await agent.form('/account/verification', { return_to: TAB });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<p><a id="return" href="/account">Continue</a> once you have followed it.</p>');
  });
});

describe('a return_to the session kept is checked again as it is read', () => {
  it('the second step of a sign-in', async () => {
    const { agent: owner, user } = await signedInAgent(t);
    const { uri } = (await (await owner.json('POST', '/api/account/totp', { password: TEST_PASSWORD })).json()) as { uri: string };
    const totp = URI.parse(uri) as TOTP;
    expect((await owner.json('POST', '/api/account/totp/confirm', { code: totp.generate({ timestamp: t.clock.now() }) })).status).toBe(200);
    t.clock.advance(30_000);

    const agent = new Agent(t);
    expect(located(await agent.form('/signin', { name: user.name, password: TEST_PASSWORD, return_to: '/games' }))).toEqual([303, '/signin/otp']);
    await rewriteSession(agent, (data) => {
      (data.secondStep as { returnTo: string }).returnTo = TAB;
    });
    const res = await agent.form('/signin/otp', { otp: totp.generate({ timestamp: t.clock.now() }) });
    expect(located(res)).toEqual([303, '/account']);
  });

  it('an upstream sign-in, from its start to the callback, and the identity waiting for a name', async () => {
    const agent = new Agent(t);
    const started = await agent.form('/signin/upstream/test-op', { return_to: '/games' });
    expect(started.status).toBe(303);
    await rewriteSession(agent, (data) => {
      (data.upstreamSignIn as { returnTo: string }).returnTo = TAB;
    });
    const back = await signInAtUpstreamOverHttp(started.headers.get('location')!, 'ada');
    // A new identity: it waits for a name, keeping the way back the start had (checked: none).
    expect(located(await agent.fetch(back.pathname + back.search))).toEqual([303, '/signup/upstream']);
    await rewriteSession(agent, (data) => {
      (data.upstreamIdentity as { returnTo: string }).returnTo = TAB;
    });
    expect(located(await agent.form('/signup/upstream', { name: 'ada_return' }))).toEqual([303, '/account']);

    // The same identity again, now an account's: signed in at the callback.
    const again = new Agent(t);
    const second = await again.form('/signin/upstream/test-op', { return_to: '/games' });
    await rewriteSession(again, (data) => {
      (data.upstreamSignIn as { returnTo: string }).returnTo = '/\n/evil.example';
    });
    const returned = await signInAtUpstreamOverHttp(second.headers.get('location')!, 'ada');
    expect(located(await again.fetch(returned.pathname + returned.search))).toEqual([303, '/account']);
  });
});
