/**
 * The ID token signing keys: kept encrypted in the database, shared by instances, rotated by the
 * operator (`admin keys rotate`), the old key published until nothing it signed can be valid.
 * On both databases.
 */
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { calculateJwkThumbprint, createLocalJWKSet, decodeProtectedHeader, exportJWK, importPKCS8, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/admin.js';
import { KeyRing, RETIRED_KEY_KEPT_MS } from '../../src/oauth/keys.js';
import { Agent, makeClient, makeUser, startServer, tokenRequest, type TestServer } from '../helpers.js';

const SECRET = 'signing-keys-test-session-secret-0123456789';
const OTHER_SECRET = 'another-session-secret-nobody-else-has-0123';

let t: TestServer;
beforeAll(async () => {
  t = await startServer({ SESSION_SECRET: SECRET });
});
afterAll(async () => t?.close());

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const env = { DATABASE_URL: t.config.databaseUrl, PICTURES_DIR: path.join(t.dir, 'pictures'), LOG_LEVEL: 'silent', SESSION_SECRET: SECRET };
  const code = await runCli(argv, { env: { ...env, ...(argv[0] === '--no-secret' ? { SESSION_SECRET: undefined } : {}) }, stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), now: t.clock.now });
  return { code, stdout, stderr };
}

async function jwks(): Promise<JSONWebKeySet> {
  const res = await fetch(`${t.baseUrl}/.well-known/jwks.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as JSONWebKeySet;
}

const kids = async (): Promise<string[]> => (await jwks()).keys.map((k) => k.kid!);

/** An ID token from the real flow (consent page, token endpoint). */
async function idToken(): Promise<{ token: string; clientId: string }> {
  const owner = await makeUser(t);
  const client = await makeClient(t, owner.id);
  const user = await makeUser(t);
  const agent = new Agent(t);
  await agent.signIn(user);
  const res = await agent.form('/oauth', { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'openid', decision: 'authorize' });
  const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
  const token = await tokenRequest(t, { grant_type: 'authorization_code', code, client_id: client.clientId, client_secret: client.clientSecret });
  expect(token.status).toBe(200);
  return { token: ((await token.json()) as { id_token: string }).id_token, clientId: client.clientId };
}

async function verifies(token: string, clientId: string): Promise<boolean> {
  try {
    await jwtVerify(token, createLocalJWKSet(await jwks()), { issuer: t.config.publicUrl, audience: clientId, currentDate: new Date(t.clock.now()) });
    return true;
  } catch {
    return false;
  }
}

describe('admin keys rotate', () => {
  it('adds a key that signs from then on; the old key stays published until its tokens have expired, then goes', async () => {
    const before = await idToken();
    const oldKid = decodeProtectedHeader(before.token).kid!;
    expect(await kids()).toEqual([oldKid]);

    const run = await cli('keys', 'rotate');
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const rotation = JSON.parse(run.stdout) as { kid: string; retired: string[]; retired_until: number; dropped: string[] };
    expect(rotation).toEqual({ kid: expect.stringMatching(/^[\w-]{43}$/), retired: [oldKid], retired_until: t.clock.now() + RETIRED_KEY_KEPT_MS, dropped: [] });
    expect(await kids()).toEqual([rotation.kid, oldKid]);

    // An instance reads the keys again within 30 seconds: then it signs with the new one.
    t.clock.advance(30_000);
    const after = await idToken();
    expect(decodeProtectedHeader(after.token).kid).toBe(rotation.kid);
    // Both verify against the published set: clients signed in before the rotation stay valid.
    expect(await verifies(before.token, before.clientId)).toBe(true);
    expect(await verifies(after.token, after.clientId)).toBe(true);

    // Past the retention, the old key is no longer published (its tokens expired long before),
    // and the next rotation deletes it.
    t.clock.advance(RETIRED_KEY_KEPT_MS - 30_000 - 1);
    expect(await kids()).toEqual([rotation.kid, oldKid]);
    t.clock.advance(1);
    expect(await kids()).toEqual([rotation.kid]);
    const next = JSON.parse((await cli('keys', 'rotate')).stdout) as { kid: string; dropped: string[]; retired: string[] };
    expect(next.dropped).toEqual([oldKid]);
    expect(next.retired).toEqual([rotation.kid]);

    const listed = JSON.parse((await cli('keys', 'list')).stdout) as { keys: unknown[] };
    expect(listed.keys).toEqual([
      { kid: next.kid, alg: 'RS256', created_at: t.clock.now(), retired_at: null, drops_at: null },
      { kid: rotation.kid, alg: 'RS256', created_at: expect.any(Number), retired_at: t.clock.now(), drops_at: t.clock.now() + RETIRED_KEY_KEPT_MS },
    ]);
  });

  it('signs with the operator key given by --key-file (PKCS#8 PEM), and refuses anything else', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    const file = path.join(t.dir, 'operator-key.pem');
    fs.writeFileSync(file, privateKey);
    const run = await cli('keys', 'rotate', '--key-file', file);
    expect(run.code).toBe(0);
    const kid = await calculateJwkThumbprint(await exportJWK(await importPKCS8(privateKey, 'RS256', { extractable: true })));
    expect((JSON.parse(run.stdout) as { kid: string }).kid).toBe(kid);
    t.clock.advance(30_000);
    expect(decodeProtectedHeader((await idToken()).token).kid).toBe(kid);
    // The private key is not in the database in the clear.
    const row = (await t.store.signingKeys.listSigningKeys()).find((k) => k.kid === kid)!;
    const d = ((await exportJWK(await importPKCS8(privateKey, 'RS256', { extractable: true }))) as { d: string }).d;
    expect(row.privateJwe).not.toContain(d);
    expect(row.publicJwk).not.toContain(d);

    const small = generateKeyPairSync('rsa', { modulusLength: 1024, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
    fs.writeFileSync(file, small.privateKey);
    expect(await cli('keys', 'rotate', '--key-file', file)).toEqual({ code: 1, stdout: '', stderr: 'error: The RSA key must have at least 2048 bits, this one has 1024\n' });
    fs.writeFileSync(file, 'not a key');
    expect(await cli('keys', 'rotate', '--key-file', file)).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: The key file must hold an RSA private key in PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----")\n',
    });
    expect(await cli('keys', 'rotate', '--key-file', path.join(t.dir, 'missing.pem'))).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: Cannot read the key file ${path.join(t.dir, 'missing.pem')}: ENOENT\n`,
    });
  });

  it('refuses to run without SESSION_SECRET in production, which encrypts the keys', async () => {
    let stderr = '';
    const code = await runCli(['keys', 'rotate'], { env: { DATABASE_URL: t.config.databaseUrl, LOG_LEVEL: 'silent', NODE_ENV: 'production' }, stdout: () => {}, stderr: (s) => (stderr += s) });
    expect({ code, stderr }).toEqual({ code: 1, stderr: "error: SESSION_SECRET is not set: set it to the server's, which encrypts the signing keys\n" });
  });
});

describe('keys and SESSION_SECRET', () => {
  it('an instance with a rotated SESSION_SECRET (new first, old second) still signs with the key', async () => {
    const current = (await t.store.signingKeys.listSigningKeys()).find((k) => k.retiredAt === null)!;
    const ring = new KeyRing(t.store, [OTHER_SECRET, SECRET], t.clock.now);
    expect((await ring.signingKey()).kid).toBe(current.kid);
  });

  it('an instance that can decrypt no key makes its own and retires the unreadable one, saying so', async () => {
    const current = (await t.store.signingKeys.listSigningKeys()).find((k) => k.retiredAt === null)!;
    const warnings: unknown[] = [];
    const ring = new KeyRing(t.store, [OTHER_SECRET], t.clock.now, { warn: (...args: unknown[]) => warnings.push(args) });
    const made = await ring.signingKey();
    expect(made.kid).not.toBe(current.kid);
    expect(warnings).toHaveLength(1);
    const rows = await t.store.signingKeys.listSigningKeys();
    expect(rows.find((k) => k.kid === current.kid)!.retiredAt).toBe(t.clock.now());
    expect(rows.find((k) => k.kid === made.kid)!.retiredAt).toBeNull();
  });
});
