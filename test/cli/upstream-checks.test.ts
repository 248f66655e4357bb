/**
 * `admin upstream add` checks the upstream before it stores it (issue 51): the SESSION_SECRET it
 * sees is the running server's (it opens the ID-token signing key the server sealed) and an
 * OpenID Connect issuer's discovery document is reachable and valid; it refuses with the reason
 * (exit 1, one line) unless --no-check. `admin upstream test <name>` says what works, one line per
 * check, exit 0 when all pass and 1 otherwise. Against a server in this process (its database and
 * key) and a real node-oidc-provider upstream, in-process through runCli.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers.js';
import { startUpstreamProvider, type UpstreamProvider } from '../upstream-provider.js';
import { tempDir } from '../helpers.js';
import { cliRunner } from './run.js';

const CLIENT = { client_id: 'identity-service', client_secret: 'upstream-client-secret-for-checks' };
const OTHER_KEY = 'a-session-secret-that-is-not-the-servers-0123456789';
const NOT_THE_SERVERS =
  "error: the key this command sees (SESSION_SECRET) is not the server's: it does not open the ID-token signing key the server sealed; run the command with the server's SESSION_SECRET\n";

let t: TestServer;
let op: UpstreamProvider;
let env: NodeJS.ProcessEnv;
/** Serves a discovery document per path: `/wrong-issuer`, `/no-token-endpoint`. */
let fake: http.Server;
let fakeBase: string;
let gone: string;

const { cli, cliWith } = cliRunner(() => env);

const add = (name: string, issuer: string, secret = CLIENT.client_secret, ...more: string[]) =>
  cli('upstream', 'add', '--name', name, '--issuer', issuer, '--client-id', CLIENT.client_id, '--client-secret', secret, ...more);

const refused = (stderr: string) => ({ code: 1, stdout: '', stderr });

beforeAll(async () => {
  t = await startServer();
  // The server seals its first signing key as it publishes its keys.
  expect((await fetch(`${t.baseUrl}/.well-known/jwks.json`)).status).toBe(200);
  env = { DATABASE_URL: t.config.databaseUrl, PICTURES_DIR: t.config.picturesDir, LOG_LEVEL: 'silent', SESSION_SECRET: t.config.sessionSecret, PUBLIC_URL: t.baseUrl };
  op = await startUpstreamProvider({
    clients: [{ ...CLIENT, redirect_uris: ['test-op', 'wrong-secret'].map((slug) => `${t.baseUrl}/signin/upstream/${slug}/callback`) }],
    accounts: {},
  });
  fake = http.createServer((req, res) => {
    const issuer = `${fakeBase}${req.url!.replace('/.well-known/openid-configuration', '')}`;
    const documents: Record<string, object> = {
      [`${fakeBase}/wrong-issuer`]: { issuer: 'https://someone-else.example', authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token` },
      [`${fakeBase}/no-token-endpoint`]: { issuer, authorization_endpoint: `${issuer}/auth` },
    };
    const document = documents[issuer];
    res.statusCode = document ? 200 : 404;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(document ?? {}));
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  fakeBase = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});
afterAll(async () => {
  fake?.close();
  await op?.close();
  await t?.close();
});

describe('upstream add checks the upstream first', () => {
  it("adds a provider whose discovery is valid, with the server's key: the usual answer, nothing on stderr", async () => {
    expect(await add('Test OP', op.issuer)).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ slug: 'test-op', name: 'Test OP', kind: 'oidc', preset: null, callback: `${t.baseUrl}/signin/upstream/test-op/callback` })}\n`,
      stderr: '',
    });
  });

  it("refuses, with the reason and exit 1, a SESSION_SECRET that is not the server's, an issuer nothing listens at, one whose document names another issuer or lacks the token endpoint, or none at all; adds nothing", async () => {
    expect(await cliWith({ ...env, SESSION_SECRET: OTHER_KEY }, 'upstream', 'add', '--name', 'Elsewhere', '--issuer', op.issuer, '--client-id', 'c', '--client-secret', 's')).toEqual(
      refused(NOT_THE_SERVERS),
    );
    const port = new URL(gone).port;
    expect(await add('Gone', gone)).toEqual(
      refused(`error: discovery failed: ${gone}/.well-known/openid-configuration cannot be reached (connect ECONNREFUSED 127.0.0.1:${port}) (add it anyway with --no-check)\n`),
    );
    expect(await add('Wrong', `${fakeBase}/wrong-issuer`)).toEqual(
      refused(
        `error: discovery failed: ${fakeBase}/wrong-issuer/.well-known/openid-configuration names the issuer "https://someone-else.example", not "${fakeBase}/wrong-issuer" (add it anyway with --no-check)\n`,
      ),
    );
    expect(await add('Half', `${fakeBase}/no-token-endpoint`)).toEqual(
      refused(`error: discovery failed: ${fakeBase}/no-token-endpoint/.well-known/openid-configuration has no token_endpoint (add it anyway with --no-check)\n`),
    );
    expect(await add('Nobody', `${fakeBase}/nobody`)).toEqual(
      refused(`error: discovery failed: ${fakeBase}/nobody/.well-known/openid-configuration answered 404, not 200 (add it anyway with --no-check)\n`),
    );
    const { upstreams } = JSON.parse((await cli('upstream', 'list')).stdout) as { upstreams: { slug: string }[] };
    expect(upstreams.map((u) => u.slug)).toEqual(['test-op']);
  });

  it('adds with --no-check what the checks would refuse', async () => {
    expect((await add('Gone', gone, 's', '--no-check')).code).toBe(0);
    expect((await cliWith({ ...env, SESSION_SECRET: OTHER_KEY }, 'upstream', 'add', '--name', 'Sealed Elsewhere', '--issuer', op.issuer, '--client-id', CLIENT.client_id, '--client-secret', CLIENT.client_secret, '--no-check')).code).toBe(0);
    // The server's key, but a client secret the provider does not know.
    expect((await add('Wrong Secret', op.issuer, 'not-the-client-secret')).code).toBe(0);
  });

  it('on a database the server never started on (nothing sealed yet), says so on stderr and adds', async () => {
    const dir = tempDir('idp-upstream-checks-');
    const fresh = { ...env, DATABASE_URL: `${dir}/fresh.sqlite` };
    expect(await cliWith(fresh, 'upstream', 'add', '--name', 'Test OP', '--issuer', op.issuer, '--client-id', 'c', '--client-secret', 's')).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ slug: 'test-op', name: 'Test OP', kind: 'oidc', preset: null, callback: `${t.baseUrl}/signin/upstream/test-op/callback` })}\n`,
      stderr:
        "note: SESSION_SECRET: nothing the server sealed is in the database yet (no ID-token signing key), so it cannot be compared with the server's\n",
    });
  });
});

describe('upstream test <name> says what works', () => {
  it('all checks pass for a provider that is up and knows the client: one line each, exit 0', async () => {
    expect(await cli('upstream', 'test', 'test op')).toEqual({
      code: 0,
      stdout: [
        "SESSION_SECRET: ok: it opens the ID-token signing key the server sealed: it is the server's",
        'client secret: ok: SESSION_SECRET unseals it',
        `discovery: ok: ${op.issuer}/.well-known/openid-configuration names the issuer, an authorization and a token endpoint`,
        'token endpoint: ok: reachable, and took the client id and secret (to a made-up code it answered 400 invalid_grant)',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('an issuer nothing listens at: discovery failed with the reason, the token endpoint not tried, exit 1', async () => {
    expect(await cli('upstream', 'test', 'Gone')).toEqual({
      code: 1,
      stdout: [
        "SESSION_SECRET: ok: it opens the ID-token signing key the server sealed: it is the server's",
        'client secret: ok: SESSION_SECRET unseals it',
        `discovery: failed: ${gone}/.well-known/openid-configuration cannot be reached (connect ECONNREFUSED 127.0.0.1:${new URL(gone).port})`,
        'token endpoint: failed: not tried: discovery failed',
        '',
      ].join('\n'),
      stderr: 'error: Gone: 2 of 4 checks failed (discovery, token endpoint)\n',
    });
  });

  it('a client secret sealed under another key, and a client secret the provider refuses: failed, exit 1', async () => {
    const elsewhere = await cli('upstream', 'test', 'sealed-elsewhere');
    expect(elsewhere).toEqual({
      code: 1,
      stdout: [
        "SESSION_SECRET: ok: it opens the ID-token signing key the server sealed: it is the server's",
        "client secret: failed: SESSION_SECRET does not unseal it: add the upstream again with the server's SESSION_SECRET",
        `discovery: ok: ${op.issuer}/.well-known/openid-configuration names the issuer, an authorization and a token endpoint`,
        'token endpoint: failed: not tried: the client secret cannot be unsealed',
        '',
      ].join('\n'),
      stderr: 'error: Sealed Elsewhere: 2 of 4 checks failed (client secret, token endpoint)\n',
    });
    const wrong = await cli('upstream', 'test', 'Wrong Secret');
    expect([wrong.code, wrong.stdout.split('\n')[3], wrong.stderr]).toEqual([
      1,
      'token endpoint: failed: it refused the client id and secret (401 invalid_client)',
      'error: Wrong Secret: 1 of 4 checks failed (token endpoint)\n',
    ]);
    expect(wrong.stdout + wrong.stderr).not.toContain('not-the-client-secret');
  });

  it("run with a SESSION_SECRET that is not the server's: says so first; an unknown name is exit 3", async () => {
    const run = await cliWith({ ...env, SESSION_SECRET: OTHER_KEY }, 'upstream', 'test', 'Test OP');
    expect([run.code, run.stdout.split('\n')[0]]).toEqual([1, `SESSION_SECRET: failed: ${NOT_THE_SERVERS.slice('error: '.length, -1)}`]);
    expect(await cli('upstream', 'test', 'nobody')).toEqual({ code: 3, stdout: '', stderr: 'error: Upstream "nobody" not found\n' });
  });
});
