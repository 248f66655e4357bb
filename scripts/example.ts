/**
 * `npm run example`: the typed client against a running server with the demo data, step by step:
 * code -> token -> whois -> users/info -> the medium profile picture -> introspect -> revoke.
 *
 * Run it with the same environment as the server (DATABASE_URL, PUBLIC_URL, PORT): the
 * authorization code comes from the operator CLI, in-process, so the example needs no browser;
 * a real app gets it from the traditional or game flow (the authorize URL it
 * would send a browser to is printed too). Options: --user <id> (1), --out <file>.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { createIdentityClient, createPkcePair, createState, IdentityServiceError } from '../client/index.js';
import { runCli } from '../src/cli/admin.js';
import { loadConfig } from '../src/config.js';
import { DEMO } from '../src/demo.js';

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const userId = option('--user', '1');
const out = path.resolve(option('--out', path.join(os.tmpdir(), `example-user-${userId}-medium.webp`)));
const { publicUrl } = loadConfig(process.env);
const step = (n: number, text: string, value?: unknown) =>
  process.stdout.write(`${n}. ${text}${value === undefined ? '' : `\n   ${JSON.stringify(value)}`}\n`);

const idp = createIdentityClient({ baseUrl: publicUrl, clientId: DEMO.app.clientId, clientSecret: DEMO.app.clientSecret });

async function main(): Promise<void> {
  process.stdout.write(`Service: ${publicUrl} (app ${DEMO.app.clientId}, user ${userId})\n`);
  const pkce = await createPkcePair();
  step(0, 'A real app would send the browser to:', idp.authorizeUrl({ redirectUri: DEMO.app.redirectUri, scope: ['userinfo', 'email'], state: createState(), codeChallenge: pkce.challenge }));

  let printed = '';
  let errors = '';
  const exit = await runCli(
    ['code', 'issue', '--user', userId, '--client-id', DEMO.app.clientId, '--scope', 'userinfo email', '--code-challenge', pkce.challenge],
    { env: process.env, stdout: (s) => (printed += s), stderr: (s) => (errors += s) },
  );
  if (exit !== 0) throw new Error(`the operator CLI could not issue a code (exit ${exit}): ${errors.trim()}`);
  const { code } = JSON.parse(printed) as { code: string };
  step(1, 'Authorization code (operator CLI, PKCE S256):', `${code.slice(0, 8)}...`);

  const token = await idp.exchangeToken({ code, codeVerifier: pkce.verifier });
  step(2, 'POST /api/oauth/token ->', { ...token, access_token: `${token.access_token.slice(0, 8)}...` });

  const me = await idp.whois(token.access_token);
  step(3, 'GET /api/oauth/whois ->', me);

  const profile = await idp.userInfo(me.id);
  step(4, `GET /api/users/info?id=${me.id} ->`, profile);

  const url = idp.pictureUrl(profile, 'medium');
  const bytes = await idp.fetchPicture(profile, 'medium');
  const meta = await sharp(bytes).metadata();
  fs.writeFileSync(out, bytes);
  step(5, `GET ${url} -> ${meta.format} ${meta.width}x${meta.height}, ${bytes.length} bytes, saved to ${out}`);

  step(6, 'POST /api/oauth/introspect -> (exp and iat in seconds)', await idp.introspectToken(token.access_token));
  await idp.revokeToken(token.access_token);
  const after = await idp.whois(token.access_token).then(
    () => 'still valid',
    (err: unknown) => (err instanceof IdentityServiceError ? `${err.status} ${err.message}` : String(err)),
  );
  step(7, `POST /api/oauth/revoke -> 200; whois now answers ${after}`);
}

main().catch((err: unknown) => {
  if (err instanceof IdentityServiceError) process.stderr.write(`error: ${err.status} ${err.message}\n`);
  else if (err instanceof TypeError && /fetch failed/.test(err.message)) {
    process.stderr.write(`error: no server answers at ${publicUrl}: start it with \`npm start\` (same environment)\n`);
  } else process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
