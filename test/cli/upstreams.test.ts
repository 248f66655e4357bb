/**
 * `admin upstream add|list|enable|disable|update|remove` (src/cli/upstreams.ts), in-process through runCli
 * as test/cli/admin.test.ts runs the other commands: exact JSON lines, exit codes and stderr, and
 * the client secret nowhere but sealed in its row.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStoreAt } from '../../src/store/open.js';
import { upstreamClientSecret } from '../../src/upstreams/upstreams.js';
import { tempDir } from '../helpers.js';
import { cliRunner } from './run.js';

const NOW = 1_800_000_000_000;
const SESSION_SECRET = 'upstreams-test-session-secret-0123456789';
const PUBLIC_URL = 'https://id.example.com';

let dir: string;
let env: NodeJS.ProcessEnv;

const { cliWith, ok, fails } = cliRunner(() => env, () => NOW);

// Added without the checks of a real provider (--no-check): those are test/cli/upstream-checks.test.ts's.
const secretArgs = (n: string) => ['--client-id', `client-${n}`, '--client-secret', `secret-${n}`, '--no-check'];

/** What `upstream list` shows of each, by slug. */
async function listed(): Promise<Record<string, Record<string, unknown>>> {
  const { upstreams } = await ok<{ upstreams: { slug: string }[] }>('upstream', 'list');
  return Object.fromEntries(upstreams.map((u) => [u.slug, u]));
}

beforeAll(() => {
  dir = tempDir('idp-upstreams-');
  env = { DATABASE_URL: path.join(dir, 'cli.sqlite'), PICTURES_DIR: path.join(dir, 'pics'), LOG_LEVEL: 'silent', SESSION_SECRET, PUBLIC_URL };
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('upstream add', () => {
  it('adds an OpenID Connect provider by its issuer: prints slug, name, kind, preset and the callback; list shows it', async () => {
    expect(await ok('upstream', 'add', '--name', 'My Company SSO', '--issuer', 'https://sso.example.org', ...secretArgs('sso'))).toEqual({
      slug: 'my-company-sso',
      name: 'My Company SSO',
      kind: 'oidc',
      preset: null,
      callback: 'https://id.example.com/signin/upstream/my-company-sso/callback',
    });
    expect((await listed())['my-company-sso']).toEqual({
      slug: 'my-company-sso',
      name: 'My Company SSO',
      kind: 'oidc',
      preset: null,
      issuer: 'https://sso.example.org',
      authorization_endpoint: null,
      token_endpoint: null,
      userinfo_endpoint: null,
      claims: null,
      scopes: ['openid', 'email', 'profile'],
      client_id: 'client-sso',
      enabled: true,
      trust_mfa: false,
      created_at: NOW,
      callback: 'https://id.example.com/signin/upstream/my-company-sso/callback',
    });
  });

  it('adds each preset with only a client id and secret; its settings are the preset\'s', async () => {
    for (const [name, preset] of [['Google', 'google'], ['Discord', 'discord'], ['GitHub', 'github']]) {
      expect(await ok('upstream', 'add', '--name', name!, '--preset', preset!, ...secretArgs(preset!))).toEqual({
        slug: preset,
        name,
        kind: preset === 'google' ? 'oidc' : 'oauth2',
        preset,
        callback: `https://id.example.com/signin/upstream/${preset}/callback`,
      });
    }
    const all = await listed();
    const common = (slug: string) => ({ slug, preset: slug, client_id: `client-${slug}`, enabled: true, trust_mfa: false, created_at: NOW, callback: `https://id.example.com/signin/upstream/${slug}/callback` });
    expect(all.google).toEqual({
      ...common('google'),
      name: 'Google',
      kind: 'oidc',
      issuer: 'https://accounts.google.com',
      authorization_endpoint: null,
      token_endpoint: null,
      userinfo_endpoint: null,
      claims: null,
      scopes: ['openid', 'email', 'profile'],
    });
    expect(all.discord).toEqual({
      ...common('discord'),
      name: 'Discord',
      kind: 'oauth2',
      issuer: null,
      authorization_endpoint: 'https://discord.com/oauth2/authorize',
      token_endpoint: 'https://discord.com/api/oauth2/token',
      userinfo_endpoint: 'https://discord.com/api/users/@me',
      claims: { subject: 'id', name: 'username', email: 'email', email_verified: 'verified' },
      scopes: ['identify', 'email'],
    });
    expect(all.github).toEqual({
      ...common('github'),
      name: 'GitHub',
      kind: 'oauth2',
      issuer: null,
      authorization_endpoint: 'https://github.com/login/oauth/authorize',
      token_endpoint: 'https://github.com/login/oauth/access_token',
      userinfo_endpoint: 'https://api.github.com/user',
      claims: { subject: 'id', name: 'login', email: 'email', email_verified: null },
      scopes: ['read:user', 'user:email'],
    });
  });

  it('adds a plain OAuth 2.0 provider by its endpoints, claim mapping and scopes (http allowed on localhost)', async () => {
    expect(
      await ok(
        'upstream', 'add', '--name', 'Local OP',
        '--authorization-endpoint', 'http://localhost:4444/auth',
        '--token-endpoint', 'http://127.0.0.1:4444/token',
        '--userinfo-endpoint', 'https://op.example.net/me',
        '--claim', 'subject=sub', '--claim', 'name=nickname', '--claim', 'email=mail', '--claim', 'email_verified=mail_ok',
        '--scope', 'profile', '--scope', 'mail', '--scope', 'profile',
        ...secretArgs('local'),
      ),
    ).toEqual({ slug: 'local-op', name: 'Local OP', kind: 'oauth2', preset: null, callback: 'https://id.example.com/signin/upstream/local-op/callback' });
    expect((await listed())['local-op']).toEqual({
      slug: 'local-op',
      name: 'Local OP',
      kind: 'oauth2',
      preset: null,
      issuer: null,
      authorization_endpoint: 'http://localhost:4444/auth',
      token_endpoint: 'http://127.0.0.1:4444/token',
      userinfo_endpoint: 'https://op.example.net/me',
      claims: { subject: 'sub', name: 'nickname', email: 'mail', email_verified: 'mail_ok' },
      scopes: ['profile', 'mail'],
      client_id: 'client-local',
      enabled: true,
      trust_mfa: false,
      created_at: NOW,
      callback: 'https://id.example.com/signin/upstream/local-op/callback',
    });
    // Without email_verified, and with no scope at all.
    await ok(
      'upstream', 'add', '--name', 'Bare',
      '--authorization-endpoint', 'https://bare.example/a', '--token-endpoint', 'https://bare.example/t', '--userinfo-endpoint', 'https://bare.example/u',
      '--claim', 'subject=id', '--claim', 'name=login', '--claim', 'email=email',
      ...secretArgs('bare'),
    );
    expect((await listed()).bare).toMatchObject({ claims: { subject: 'id', name: 'login', email: 'email', email_verified: null }, scopes: [] });
  });

  it('stores the client secret only sealed: not in any column, not on stdout or stderr even at LOG_LEVEL=trace; SESSION_SECRET opens it', async () => {
    const secret = 'very-secret-upstream-value-7f3a9c';
    const run = await cliWith({ ...env, LOG_LEVEL: 'trace' }, 'upstream', 'add', '--name', 'Sealed', '--issuer', 'https://sealed.example', '--client-id', 'sealed-client', '--client-secret', secret, '--no-check');
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(secret);
    const listRun = await cliWith({ ...env, LOG_LEVEL: 'trace' }, 'upstream', 'list');
    expect(listRun.code).toBe(0);
    expect(listRun.stdout + listRun.stderr).not.toContain(secret);
    expect(listRun.stdout + listRun.stderr).not.toContain('client_secret');

    const store = openStoreAt(env.DATABASE_URL!);
    try {
      const rows = (await store.knex('upstream_providers').select('*')) as Record<string, unknown>[];
      expect(rows.length).toBeGreaterThan(0);
      const dump = JSON.stringify(rows);
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(Buffer.from(secret).toString('base64url'));
      const record = (await store.upstreams.getUpstream('sealed'))!;
      // A compact JWE (dir, A256GCM): five parts, an empty encrypted key.
      expect(record.clientSecretSealed).toMatch(/^[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(await upstreamClientSecret([SESSION_SECRET], record)).toBe(secret);
      expect(await upstreamClientSecret(['another-session-secret-0123456789abcdef'], record)).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('needs exactly one of --issuer, --preset and the endpoint triple, the whole triple, and its claims (usage errors, exit 2)', async () => {
    const one = 'give exactly one of --issuer, --preset, or --authorization-endpoint with --token-endpoint and --userinfo-endpoint';
    await fails(2, one, 'upstream', 'add', '--name', 'None', ...secretArgs('x'));
    await fails(2, one, 'upstream', 'add', '--name', 'Two', '--issuer', 'https://a.example', '--preset', 'google', ...secretArgs('x'));
    await fails(2, one, 'upstream', 'add', '--name', 'Two', '--issuer', 'https://a.example', '--token-endpoint', 'https://a.example/t', ...secretArgs('x'));
    await fails(
      2,
      'give --authorization-endpoint, --token-endpoint and --userinfo-endpoint together',
      'upstream', 'add', '--name', 'Half', '--authorization-endpoint', 'https://a.example/a', '--token-endpoint', 'https://a.example/t',
      '--claim', 'subject=id', '--claim', 'name=login', '--claim', 'email=email', ...secretArgs('x'),
    );
    await fails(
      2,
      'an OAuth 2.0 upstream needs --claim subject=<member>, --claim name=<member> and --claim email=<member>',
      'upstream', 'add', '--name', 'Unmapped', '--authorization-endpoint', 'https://a.example/a', '--token-endpoint', 'https://a.example/t', '--userinfo-endpoint', 'https://a.example/u',
      '--claim', 'subject=id', ...secretArgs('x'),
    );
    await fails(2, '--claim is for an OAuth 2.0 upstream given by its endpoints', 'upstream', 'add', '--name', 'Odd', '--preset', 'github', '--claim', 'subject=id', ...secretArgs('x'));
    await fails(
      2,
      "option '--claim <fact=member>' argument 'picture=avatar' is invalid. --claim must be <fact>=<member>, the fact one of subject, name, email, email_verified",
      'upstream', 'add', '--name', 'Odd', '--claim', 'picture=avatar', ...secretArgs('x'),
    );
    await fails(2, "option '--claim <fact=member>' argument 'subject=uid' is invalid. --claim subject is given twice", 'upstream', 'add', '--name', 'Odd', '--claim', 'subject=id', '--claim', 'subject=uid', ...secretArgs('x'));
    await fails(2, "option '--preset <preset>' argument 'gitlab' is invalid. Allowed choices are google, discord, github.", 'upstream', 'add', '--name', 'GitLab', '--preset', 'gitlab', ...secretArgs('x'));
    await fails(2, "required option '--client-secret <secret>' not specified", 'upstream', 'add', '--name', 'G', '--preset', 'google', '--client-id', 'c');
    expect((await listed()).none).toBeUndefined();
  });

  it('refuses a plain-http address off localhost, an issuer with a query, OpenID Connect without openid, a bad name or client id (exit 1)', async () => {
    await fails(1, 'Issuer must use https (http is allowed on localhost only): http://sso.example.org', 'upstream', 'add', '--name', 'Plain', '--issuer', 'http://sso.example.org', ...secretArgs('x'));
    await fails(1, 'Issuer must not contain a query: https://sso.example.org/?tenant=1', 'upstream', 'add', '--name', 'Query', '--issuer', 'https://sso.example.org/?tenant=1', ...secretArgs('x'));
    await fails(
      1,
      'Token endpoint must use https (http is allowed on localhost only): http://op.example/t',
      'upstream', 'add', '--name', 'Plain', '--authorization-endpoint', 'https://op.example/a', '--token-endpoint', 'http://op.example/t', '--userinfo-endpoint', 'https://op.example/u',
      '--claim', 'subject=id', '--claim', 'name=login', '--claim', 'email=email', ...secretArgs('x'),
    );
    await fails(1, 'An OpenID Connect upstream must ask for the scope openid', 'upstream', 'add', '--name', 'No OIDC', '--issuer', 'https://sso.example.org', '--scope', 'email', ...secretArgs('x'));
    await fails(1, 'Upstream name must contain a letter (a-z) or a digit', 'upstream', 'add', '--name', '***', '--preset', 'google', ...secretArgs('x'));
    await fails(1, 'Upstream name must be 1 to 64 characters', 'upstream', 'add', '--name', 'x'.repeat(65), '--preset', 'google', ...secretArgs('x'));
    await fails(1, 'Client id must be 1 to 255 characters without spaces or control characters', 'upstream', 'add', '--name', 'Spaced', '--preset', 'google', '--client-id', 'a b', '--client-secret', 's');
    const all = await listed();
    for (const slug of ['plain', 'query', 'no-oidc', 'spaced']) expect(all[slug]).toBeUndefined();
  });

  it('refuses a name whose slug is taken, in any case (exit 4)', async () => {
    await ok('upstream', 'add', '--name', 'Taken Name', '--issuer', 'https://taken.example', ...secretArgs('taken'));
    await fails(4, 'An upstream named "taken-name" exists already', 'upstream', 'add', '--name', 'TAKEN name!', '--preset', 'google', ...secretArgs('other'));
    expect((await listed())['taken-name']).toMatchObject({ issuer: 'https://taken.example', client_id: 'client-taken' });
  });

  it('refuses without SESSION_SECRET in production, which seals the client secret (exit 1)', async () => {
    const without = { ...env, SESSION_SECRET: undefined, NODE_ENV: 'production' };
    expect(await cliWith(without, 'upstream', 'add', '--name', 'Unsealed', '--preset', 'google', ...secretArgs('x'))).toEqual({
      code: 1,
      stdout: '',
      stderr: "error: SESSION_SECRET is not set: set it to the server's, which seals the upstreams' client secrets\n",
    });
  });
});

describe('upstream disable, enable and remove', () => {
  it('find the upstream by its name in any case, print it as list gives it (remove: {}), and exit 3 for an unknown name', async () => {
    await ok('upstream', 'add', '--name', 'Switch Co', '--issuer', 'https://switch.example', ...secretArgs('switch'));
    const shown = (await listed())['switch-co']!;
    expect(await ok('upstream', 'disable', '--name', 'SWITCH CO')).toEqual({ ...shown, enabled: false });
    expect((await listed())['switch-co']).toEqual({ ...shown, enabled: false });
    expect(await ok('upstream', 'enable', '--name', 'switch co')).toEqual(shown);
    expect(await ok('upstream', 'remove', '--name', 'Switch Co')).toEqual({});
    expect((await listed())['switch-co']).toBeUndefined();
    await fails(3, 'Upstream "Switch Co" not found', 'upstream', 'remove', '--name', 'Switch Co');
    await fails(3, 'Upstream "Nowhere" not found', 'upstream', 'disable', '--name', 'Nowhere');
    await fails(3, 'Upstream "Nowhere" not found', 'upstream', 'enable', '--name', 'Nowhere');
    await fails(3, 'Upstream "***" not found', 'upstream', 'remove', '--name', '***');
    await fails(2, "required option '--name <name>' not specified", 'upstream', 'disable');
  });
});

describe('upstream update', () => {
  it("--trust-mfa and --no-trust-mfa set whether the upstream's mfa counts (off when added), printing it as list gives it; neither is a usage error (exit 2), an unknown name exit 3", async () => {
    await ok('upstream', 'add', '--name', 'Strong SSO', '--issuer', 'https://strong.example', ...secretArgs('strong'));
    const shown = (await listed())['strong-sso']!;
    expect(shown.trust_mfa).toBe(false);
    expect(await ok('upstream', 'update', '--name', 'STRONG sso', '--trust-mfa')).toEqual({ ...shown, trust_mfa: true });
    expect((await listed())['strong-sso']).toEqual({ ...shown, trust_mfa: true });
    // The rest is as it was: disabling keeps the trust, and the trust keeps the rest.
    expect(await ok('upstream', 'disable', '--name', 'strong-sso')).toEqual({ ...shown, trust_mfa: true, enabled: false });
    expect(await ok('upstream', 'update', '--name', 'strong-sso', '--no-trust-mfa')).toEqual({ ...shown, enabled: false });
    expect((await listed())['strong-sso']).toEqual({ ...shown, enabled: false });
    await fails(2, 'give --trust-mfa or --no-trust-mfa', 'upstream', 'update', '--name', 'strong-sso');
    await fails(2, "required option '--name <name>' not specified", 'upstream', 'update', '--trust-mfa');
    await fails(3, 'Upstream "Nowhere" not found', 'upstream', 'update', '--name', 'Nowhere', '--trust-mfa');
    await fails(3, 'Upstream "***" not found', 'upstream', 'update', '--name', '***', '--no-trust-mfa');
  });
});
