/**
 * The typed client as an npm package (client/package.json): `npm pack` builds and packs it, a
 * fresh project outside the repository installs the tarball, type-checks a sample with its own
 * TypeScript (module nodenext, and moduleResolution bundler), bundles a browser entry with
 * esbuild, and runs the sample with Node against a real server.
 */
import { createHash, randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOAuthApp } from '../../src/oauth/clients.js';
import type { UserRecord } from '../../src/domain/users.js';
import { makeClient, makeCode, makeUser, startServer, type TestClient, type TestServer } from '../helpers.js';

const root = path.resolve(import.meta.dirname, '../..');
const rootPackage = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
const SPA_CALLBACK = 'https://spa.example/callback';
const NONCE = 'n-0S6_WzA2Mj';

/** The outer npm's script variables (npm_package_*, npm_lifecycle_*, its local prefix) stay out of the inner npm. */
const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_(?!config_)|^npm_config_local_prefix$/i.test(key)));

/** Runs a command to its end and resolves with its stdout; asynchronous, so the server in this process keeps answering. */
async function run(command: string, args: string[], cwd: string): Promise<string> {
  return (await promisify(execFile)(command, args, { cwd, env: npmEnv, encoding: 'utf8' })).stdout;
}

let t: TestServer;
let tmp: string;
let project: string;
let packed: { filename: string; size: number; files: { path: string }[] };
let user: UserRecord;
let app: TestClient;
let spaClientId: string;

/** The sample: what an app written against the package does (the inputs come from inputs.ts). */
const SAMPLE = `
import {
  createIdentityClient,
  IdentityServiceError,
  IdTokenError,
  pictureUrl,
  pkceChallenge,
  type IdToken,
  type IdTokenClaims,
  type RefreshedTokenResponse,
  type TokenResponse,
} from '@identity-profile-service/client';
import type { AuthorizeResult } from '@identity-profile-service/client/game';
import { input } from './inputs.js';

const idp = createIdentityClient({ baseUrl: input.baseUrl, clientId: input.clientId, clientSecret: input.clientSecret });
const meta = await idp.openIdConfiguration();
console.log('issuer', meta.issuer === input.baseUrl);

const token: TokenResponse = await idp.exchangeToken({ code: input.code });
const idToken: IdToken | undefined = token.id_token;
if (idToken === undefined) throw new Error('no id_token');
const claims: IdTokenClaims = await idp.verifyIdToken(idToken, { nonce: input.nonce, maxAge: 600 });
console.log('id token', claims.sub, claims.preferred_username, claims.aud === input.clientId, claims.nonce);
try {
  await idp.verifyIdToken(idToken, { nonce: 'another' });
} catch (err) {
  if (err instanceof IdTokenError) console.log('refused', err.code);
}
const me = await idp.whois(token.access_token);
console.log('whois', me.id, me.name);
const info = await idp.oidcUserInfo(token.access_token, { method: 'POST' });
console.log('userinfo', info.sub, info.picture === pictureUrl(input.baseUrl, { id: me.id }, 'large'));
console.log('introspect', (await idp.introspectToken(token.access_token)).active);
await idp.revokeToken(token.access_token);
try {
  await idp.whois(token.access_token);
} catch (err) {
  if (err instanceof IdentityServiceError) console.log('after revoke', err.status, err.oauthError, err.message);
}
try {
  await idp.exchangeToken({ code: input.code });
} catch (err) {
  if (err instanceof IdentityServiceError) console.log('again', err.status, err.message);
}

const spa = createIdentityClient({ baseUrl: input.baseUrl, clientId: input.spaClientId });
console.log('pkce', (await pkceChallenge(input.verifier)) === input.challenge);
const spaToken = await spa.exchangeToken({ code: input.spaCode, redirectUri: input.spaRedirectUri, codeVerifier: input.verifier });
console.log('public', spaToken.token_type, spaToken.expires_in, (await spa.whois(spaToken.access_token)).name);
const renewed: RefreshedTokenResponse = await spa.refresh(spaToken.refresh_token!);
console.log('refreshed', renewed.refresh_token !== spaToken.refresh_token, (await spa.whois(renewed.access_token)).name);
try {
  await spa.refresh(spaToken.refresh_token!);
} catch (err) {
  if (err instanceof IdentityServiceError) console.log('spent', err.status, err.oauthError);
}
console.log(spa.logoutUrl({ postLogoutRedirectUri: 'https://spa.example/bye', state: 's1' }).slice(input.baseUrl.length));
console.log(pictureUrl(input.baseUrl, { id: 12, pfpTimestamp: 1733707565493 }, 'small').slice(input.baseUrl.length));

const game: AuthorizeResult = { code: 'c', codeVerifier: 'v' };
console.log('game', Object.keys(game).join(' '));
`;

/** A browser app's entry: the package bundles for the browser with everything inside. */
const BROWSER = `
import { createIdentityClient, createPkcePair } from '@identity-profile-service/client';
const spa = createIdentityClient({ baseUrl: location.origin, clientId: 'spa' });
const pkce = await createPkcePair();
location.assign(spa.authorizeUrl({ redirectUri: location.href, scope: ['openid'], state: 's', codeChallenge: pkce.challenge }));
`;

/** Packs the package and installs it, with TypeScript, into a new project outside the repository. */
async function packAndInstall(): Promise<void> {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'client-package-'));
  // npm pack runs prepack (the build) and writes the tarball; --json keeps the scripts' output on stderr.
  [packed] = JSON.parse(await run('npm', ['pack', '--json', '--pack-destination', tmp], path.join(root, 'client'))) as [typeof packed];
  project = path.join(tmp, 'app');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'sample-app', private: true, type: 'module' }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(tmp, packed.filename), `typescript@${rootPackage.devDependencies.typescript}`], project);
}

beforeAll(async () => {
  [t] = await Promise.all([startServer(), packAndInstall()]);
  // Discovery's issuer and jwks_uri are the server's own address once it listens.
  t.config.publicUrl = t.baseUrl;
  user = await makeUser(t);
  app = await makeClient(t, user.id);
  const { app: spa } = await registerOAuthApp(
    { store: t.store, now: t.clock.now },
    { ownerId: user.id, name: 'SPA', redirectUris: [SPA_CALLBACK], public: true, grantTypes: ['authorization_code', 'refresh_token'] },
  );
  spaClientId = spa.clientId;
}, 120_000);
afterAll(async () => {
  await t?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the client package', () => {
  it('ships the build, the contract types and the game SDK, at the contract version', () => {
    expect(packed.files.map((f) => f.path).sort()).toEqual(
      ['README.md', 'dist/client/index.d.ts', 'dist/client/index.js', 'dist/client/sdk/game.d.ts', 'dist/client/sdk/game.js', 'dist/generated/api.d.ts', 'package.json'].sort(),
    );
    const installed = JSON.parse(fs.readFileSync(path.join(project, 'node_modules/@identity-profile-service/client/package.json'), 'utf8')) as { version: string };
    const contract = yaml.load(fs.readFileSync(path.join(root, 'openapi.yaml'), 'utf8')) as { info: { version: string } };
    expect([installed.version, packed.filename]).toEqual([contract.info.version, `identity-profile-service-client-${contract.info.version}.tgz`]);
  });

  it('type-checks in a strict nodenext project and with moduleResolution bundler, bundles for browsers, and runs in Node', async () => {
    const code = await makeCode(t, { userId: user.id, clientId: app.clientId, scope: 'userinfo openid profile', nonce: NONCE });
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const spaCode = await makeCode(t, { userId: user.id, clientId: spaClientId, scope: 'userinfo offline_access', redirectUri: SPA_CALLBACK, codeChallenge: challenge });
    const input = { baseUrl: t.baseUrl, clientId: app.clientId, clientSecret: app.clientSecret, code, nonce: NONCE, spaClientId, spaCode, spaRedirectUri: SPA_CALLBACK, verifier, challenge };
    fs.writeFileSync(path.join(project, 'inputs.ts'), `export const input = ${JSON.stringify(input, null, 2)};\n`);
    fs.writeFileSync(path.join(project, 'sample.ts'), SAMPLE);
    fs.writeFileSync(path.join(project, 'browser.ts'), BROWSER);
    // The default lib (DOM) and no Node types: the package needs no @types/node, and its
    // declarations (and its dependencies') check without skipLibCheck (the ES and DOM libs are skipped).
    const compilerOptions = { strict: true, target: 'ES2022', module: 'nodenext', outDir: 'out', skipLibCheck: false, skipDefaultLibCheck: true };
    fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['sample.ts', 'browser.ts'] }));
    fs.writeFileSync(
      path.join(project, 'tsconfig.bundler.json'),
      JSON.stringify({ extends: './tsconfig.json', compilerOptions: { module: 'esnext', moduleResolution: 'bundler', noEmit: true, skipLibCheck: true } }),
    );
    const tsc = path.join(project, 'node_modules/typescript/bin/tsc');
    expect(await run(process.execPath, [tsc, '-p', 'tsconfig.json'], project)).toBe('');
    expect(await run(process.execPath, [tsc, '-p', 'tsconfig.bundler.json'], project)).toBe('');

    // esbuild (the repository's, through tsx) resolves the package from the sample project.
    await run(path.join(root, 'node_modules/.bin/esbuild'), ['browser.ts', '--bundle', '--platform=browser', '--format=esm', '--log-level=warning', '--metafile=meta.json', '--outfile=out/browser.bundle.js'], project);
    const meta = JSON.parse(fs.readFileSync(path.join(project, 'meta.json'), 'utf8')) as { inputs: Record<string, unknown>; outputs: Record<string, { imports: unknown[] }> };
    const inputs = Object.keys(meta.inputs);
    expect(inputs).toContain('node_modules/@identity-profile-service/client/dist/client/index.js');
    expect(inputs.some((file) => file.startsWith('node_modules/jose/dist/webapi/'))).toBe(true);
    expect(meta.outputs['out/browser.bundle.js']!.imports).toEqual([]);

    const output = await run(process.execPath, ['out/sample.js'], project);
    expect(output.split('\n')).toEqual([
      'issuer true',
      `id token ${user.id} ${user.name} true ${NONCE}`,
      'refused nonce',
      `whois ${user.id} ${user.name}`,
      `userinfo ${user.id} true`,
      'introspect true',
      'after revoke 401 invalid_token Access token has been revoked',
      'again 400 Authorization code has already been used; tokens issued from it are revoked',
      'pkce true',
      `public Bearer 600 ${user.name}`,
      `refreshed true ${user.name}`,
      'spent 400 invalid_grant',
      `/oauth/logout?post_logout_redirect_uri=https%3A%2F%2Fspa.example%2Fbye&state=s1&client_id=${spaClientId}`,
      '/pfp/small/12-1733707565493.webp',
      'game code codeVerifier',
      '',
    ]);
  });
});
