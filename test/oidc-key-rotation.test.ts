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
import { runCli } from '../src/cli/admin.js';
import { Agent, makeUser, startServer, tempDir, type TestServer } from './helpers.js';
import { authorizeOverHttp, registerApp, serverSeconds, type RegisteredApp } from './oidc-flow.js';

const CALLBACK = 'https://rp.example/callback';
const ID_TOKEN_SECONDS = 600;

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

/** `admin keys list`: one entry per key the service keeps. */
interface ListedKey {
  kid: string;
  [field: string]: unknown;
}
async function listKeys(): Promise<ListedKey[]> {
  const listed = await admin<{ keys: ListedKey[] } | ListedKey[]>('keys', 'list');
  return Array.isArray(listed) ? listed : listed.keys;
}

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

/** Verifies as a relying party does, against the keys jwks_uri lists now, at the server's time. */
function verify(idToken: string, jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`))) {
  return jwtVerify(idToken, jwks, { issuer, audience: app.client_id, algorithms: ['RS256'], currentDate: new Date(t.clock.now()) });
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
  /** A relying party's key cache from before the rotation (it refetches the JWKS for an unknown kid). */
  let cached: ReturnType<typeof createRemoteJWKSet>;

  it('before the rotation: one key, the ID token names it', async () => {
    before = await signIn();
    expect(await jwksKids()).toEqual([before.kid]);
    expect((await listKeys()).map((k) => k.kid)).toEqual([before.kid]);
    // jose waits 30 s before it refetches a JWKS for an unknown kid; a cache that may refetch at
    // once stands for a client whose last fetch is older than that.
    cached = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`), { cooldownDuration: 0 });
    expect((await verify(before.idToken, cached)).payload.sub).toBe(String(userId));
  });

  it('admin keys rotate: new ID tokens carry the new kid; the JWKS lists both; old and new tokens verify', async () => {
    const rotated = await admin<{ kid: string }>('keys', 'rotate');
    expect(rotated.kid).toEqual(expect.any(String));
    expect(rotated.kid).not.toBe(before.kid);
    expect((await listKeys()).map((k) => k.kid).sort()).toEqual([before.kid, rotated.kid].sort());

    after = await signIn();
    expect(after.kid).toBe(rotated.kid);
    expect(await jwksKids()).toEqual([before.kid, after.kid].sort());

    for (const jwks of [cached, undefined]) {
      const old = await verify(before.idToken, jwks);
      expect(old.protectedHeader).toMatchObject({ alg: 'RS256', kid: before.kid });
      const fresh = await verify(after.idToken, jwks);
      expect(fresh.protectedHeader).toMatchObject({ alg: 'RS256', kid: after.kid });
      expect(fresh.payload.sub).toBe(String(userId));
    }
  });

  it('the old key stays published until its last ID token has expired, then its kid is gone', async () => {
    const issuedAt = decodeJwt(before.idToken).iat!;
    expect(issuedAt).toBe(serverSeconds(t));
    // Just before the old token expires: still verifies, the old key still listed.
    t.clock.advance((ID_TOKEN_SECONDS - 1) * 1000);
    expect(serverSeconds(t)).toBe(issuedAt + ID_TOKEN_SECONDS - 1);
    expect(await jwksKids()).toEqual([before.kid, after.kid].sort());
    expect((await verify(before.idToken)).protectedHeader.kid).toBe(before.kid);

    // The old key's retention, as `admin keys list` reports it for the retired key.
    const retired = (await listKeys()).find((k) => k.kid === before.kid)!;
    const dropAt = Object.entries(retired).find(([field]) => /drop|retain|until|expires|retire/.test(field));
    expect(dropAt, `a drop time among ${JSON.stringify(retired)}`).toBeDefined();
    const dropAtMs = Number(dropAt![1]);
    expect(dropAtMs).toBeGreaterThanOrEqual(t.clock.now() + 1000);
    t.clock.advance(dropAtMs - t.clock.now() + 1000);

    expect(await jwksKids()).toEqual([after.kid]);
    expect((await listKeys()).map((k) => k.kid)).toEqual([after.kid]);
    // A relying party that fetches the keys now cannot verify the old token any more (it has expired anyway).
    await expect(verify(before.idToken)).rejects.toBeInstanceOf(joseErrors.JWKSNoMatchingKey);
  });
});
