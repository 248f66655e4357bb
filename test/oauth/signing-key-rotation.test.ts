/**
 * Signing-key rotation while relying parties are signed in: an ID token issued before
 * `admin keys rotate` still verifies against jwks_uri until it expires, new ID tokens carry the
 * new key's kid, the JWKS lists both keys, and once the old key's retention is over its kid is
 * gone. The operator CLI runs in-process over the server's database, on the server's clock.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/admin.js';
import { Agent, makeUser, startServer, tempDir, type TestServer } from '../helpers.js';
import { authorizeOverHttp, registerApp, type RegisteredApp } from '../oidc-flow.js';

const CALLBACK = 'https://rp.example/callback';
/** The design's numbers (docs/oauth.md#signing-keys): an ID token lives 10 minutes, a retired key
 * stays published 15, and an instance reads the signing key again after 30 s. */
const ID_TOKEN_SECONDS = 600;
const RETIRED_KEY_KEPT_MS = 15 * 60_000;
const SIGNING_KEY_CACHE_MS = 30_000;

let dir: string;
let env: NodeJS.ProcessEnv;
let t: TestServer;
let issuer: string;
let agent: Agent;
let userId: number;
let app: RegisteredApp;
let config: oidc.Configuration;

/** An operator command over the server's database and clock: exit 0, nothing on stderr, one JSON line. */
async function admin<T>(...argv: string[]): Promise<T> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { env, now: t.clock.now, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  expect(stdout.endsWith('\n') && !stdout.slice(0, -1).includes('\n')).toBe(true);
  return JSON.parse(stdout) as T;
}

/** `admin keys list`: every key the service keeps, newest first. */
interface ListedKey {
  kid: string;
  alg: string;
  created_at: number;
  retired_at: number | null;
  drops_at: number | null;
}
const listKeys = async () => (await admin<{ keys: ListedKey[] }>('keys', 'list')).keys;

async function jwksKids(): Promise<string[]> {
  const res = await fetch(`${issuer}/.well-known/jwks.json`);
  expect(res.status).toBe(200);
  const { keys } = (await res.json()) as { keys: { kid: string; kty: string; use: string; alg: string }[] };
  for (const key of keys) expect(key).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256', kid: expect.any(String) });
  return keys.map((k) => k.kid).sort();
}

/** A whole sign-in with openid-client (the consent is remembered after the first). */
async function signIn(): Promise<{ idToken: string; kid: string }> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope: 'openid',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  const { callbackUrl } = await authorizeOverHttp(agent, url);
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
  const idToken = tokens.id_token!;
  return { idToken, kid: decodeProtectedHeader(idToken).kid! };
}

/** Verifies as a relying party does, against the keys jwks_uri lists now, at `at` (the server's time). */
function verify(idToken: string, jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`)), at = t.clock.now()) {
  return jwtVerify(idToken, jwks, { issuer, audience: app.client_id, algorithms: ['RS256'], currentDate: new Date(at) });
}

describe('signing-key rotation while clients are signed in', () => {
  beforeAll(async () => {
    dir = tempDir('idp-keys-');
    // One environment for the server and the CLI: the same database, and the same secrets (private
    // keys are encrypted at rest, so both must derive the same key).
    env = {
      DATABASE_URL: path.join(dir, 'keys.sqlite'),
      PICTURES_DIR: path.join(dir, 'pictures'),
      OUTBOX_DIR: path.join(dir, 'outbox'),
      SESSION_SECRET: 'rotation-test-session-secret-0123456789',
      DEMO_DATA: 'false',
      LOG_LEVEL: 'silent',
    };
    t = await startServer(env);
    t.config.publicUrl = t.baseUrl;
    issuer = t.baseUrl;
    const developer = new Agent(t);
    await developer.signIn(await makeUser(t));
    app = await registerApp(developer, { name: 'Rotation RP', redirect_uris: [CALLBACK] });
    const user = await makeUser(t);
    userId = user.id;
    agent = new Agent(t);
    await agent.signIn(user);
    config = await oidc.discovery(new URL(issuer), app.client_id, app.client_secret, undefined, { execute: [oidc.allowInsecureRequests] });
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  let before: { idToken: string; kid: string };
  let after: { idToken: string; kid: string };
  let rotatedAt: number;
  /** A relying party's key cache from before the rotation (it refetches the JWKS for an unknown kid). */
  let cached: ReturnType<typeof createRemoteJWKSet>;

  /** Moves the server's (and the CLI's) clock to `ms`. */
  const setClock = (ms: number) => t.clock.advance(ms - t.clock.now());

  it('before the rotation: one key, made at the first sign-in; the ID token names it', async () => {
    const startedAt = t.clock.now();
    before = await signIn();
    expect(await jwksKids()).toEqual([before.kid]);
    expect(await listKeys()).toEqual([{ kid: before.kid, alg: 'RS256', created_at: startedAt, retired_at: null, drops_at: null }]);
    // jose waits 30 s before it refetches a JWKS for an unknown kid; a cache that may refetch at
    // once stands for a client whose last fetch is older than that.
    cached = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`), { cooldownDuration: 0 });
    expect((await verify(before.idToken, cached)).payload.sub).toBe(String(userId));
  });

  it('admin keys rotate: the JWKS lists both keys; new ID tokens carry the new kid; old and new tokens verify', async () => {
    t.clock.advance(1000);
    rotatedAt = t.clock.now();
    const rotated = await admin<{ kid: string; retired: string[]; retired_until: number; dropped: string[] }>('keys', 'rotate');
    expect(rotated).toEqual({ kid: expect.stringMatching(/^[\w-]{43}$/), retired: [before.kid], retired_until: rotatedAt + RETIRED_KEY_KEPT_MS, dropped: [] });
    expect(rotated.kid).not.toBe(before.kid);
    expect(await listKeys()).toEqual([
      { kid: rotated.kid, alg: 'RS256', created_at: rotatedAt, retired_at: null, drops_at: null },
      { kid: before.kid, alg: 'RS256', created_at: expect.any(Number), retired_at: rotatedAt, drops_at: rotatedAt + RETIRED_KEY_KEPT_MS },
    ]);
    expect(await jwksKids()).toEqual([before.kid, rotated.kid].sort());

    // A running instance reads the signing key again after at most 30 s (docs/oauth.md#signing-keys).
    setClock(rotatedAt + SIGNING_KEY_CACHE_MS);
    after = await signIn();
    expect(after.kid).toBe(rotated.kid);

    for (const jwks of [cached, undefined]) {
      const old = await verify(before.idToken, jwks);
      expect(old.protectedHeader).toEqual({ alg: 'RS256', kid: before.kid, typ: 'JWT' });
      const fresh = await verify(after.idToken, jwks);
      expect(fresh.protectedHeader).toEqual({ alg: 'RS256', kid: after.kid, typ: 'JWT' });
      expect(fresh.payload.sub).toBe(String(userId));
    }
  });

  it('the old key stays published until after its last ID token has expired, then its kid is gone and the next rotation deletes it', async () => {
    const issuedAt = decodeJwt(before.idToken).iat!;
    // Just before the old token expires: it still verifies, its key still listed.
    setClock((issuedAt + ID_TOKEN_SECONDS - 1) * 1000);
    expect(await jwksKids()).toEqual([before.kid, after.kid].sort());
    expect((await verify(before.idToken)).protectedHeader.kid).toBe(before.kid);
    // Once it has expired, it fails for its age, not for its key.
    setClock((issuedAt + ID_TOKEN_SECONDS + 1) * 1000);
    await expect(verify(before.idToken)).rejects.toBeInstanceOf(joseErrors.JWTExpired);

    // The last instant of the retention `admin keys list` reports, and the first after it.
    const dropsAt = (await listKeys()).find((k) => k.kid === before.kid)!.drops_at!;
    expect(dropsAt).toBe(rotatedAt + RETIRED_KEY_KEPT_MS);
    setClock(dropsAt - 1);
    expect(await jwksKids()).toEqual([before.kid, after.kid].sort());
    setClock(dropsAt);
    expect(await jwksKids()).toEqual([after.kid]);
    // A relying party that fetches the keys now finds no key for the old token.
    await expect(verify(before.idToken)).rejects.toBeInstanceOf(joseErrors.JWKSNoMatchingKey);
    // The newer token's key is unaffected (the token is checked at its own time: it has expired by now).
    expect((await verify(after.idToken, undefined, rotatedAt + SIGNING_KEY_CACHE_MS)).protectedHeader.kid).toBe(after.kid);

    // The key is still in the database until the next rotation deletes it.
    expect((await listKeys()).map((k) => k.kid)).toEqual([after.kid, before.kid]);
    const next = await admin<{ kid: string; retired: string[]; dropped: string[] }>('keys', 'rotate');
    expect({ retired: next.retired, dropped: next.dropped }).toEqual({ retired: [after.kid], dropped: [before.kid] });
    expect((await listKeys()).map((k) => k.kid)).toEqual([next.kid, after.kid]);
  });
});
