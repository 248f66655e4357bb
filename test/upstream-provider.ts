/**
 * A real upstream OpenID Provider for the tests: node-oidc-provider (devDependency `oidc-provider`)
 * on 127.0.0.1, on a port of its own, with the test's accounts and registered clients. A person
 * (Chromium) signs in on the provider's own development pages (devInteractions: a login form,
 * then a consent prompt), as on any provider's pages.
 *
 * What the provider is set up to do, and why:
 * - `openid email profile` with their claims (`claims` below); `conformIdTokenClaims: false` puts
 *   the scopes' claims (email, email_verified, name, preferred_username) in the ID token as well as
 *   at the userinfo endpoint, as Google does; the default would keep the ID token to `sub`.
 * - PKCE (S256, the only method oidc-provider 9 knows) is required of every client (`pkce.required`;
 *   the default asks it of public clients only).
 * - `http` redirect URIs on 127.0.0.1 need nothing: a `web` client of the code flow may register
 *   http URIs (oidc-provider refuses them only for the implicit flow), matched exactly, port included.
 * - `amr` is the session's (from the login result, `interactionFinished(..., { login: { accountId, amr } })`),
 *   never the account's claims (the ID token's `amr` is always the session's), and the ID token
 *   carries it only as a claim of a granted scope, hence `openid: ['sub', 'amr']`. devInteractions'
 *   own login gives neither `amr` nor a way to have `sub` differ from what was typed, so the login
 *   form's submission is answered here; its page and the consent prompt stay the provider's.
 * - Quiet: the notices oidc-provider prints (development keys, in-memory adapter, devInteractions,
 *   "Unsupported runtime" on Node 20) and its errors go to `logs`, which a failed test prints
 *   (`showUpstreamLogsOnFailure`). The keys and TTLs are given so that no notice is printed later.
 * - Its cookies carry the port in their names: cookies ignore ports, and two providers on 127.0.0.1
 *   (or the service's own cookies) would otherwise overwrite each other's.
 * - `prompt=login` and `max_age` are honoured as OpenID Connect says (a new login, and then
 *   `auth_time` in the ID token). A client listed in `ignoresReauthentication` gets a provider that
 *   does not support them: both are dropped from its authorization requests before the provider
 *   reads them, so it signs the person in silently from its session, as some providers do. Every
 *   authorization request is kept as it arrived (`authorizationRequests`), before anything is dropped.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { default as ProviderType } from 'oidc-provider';
import type { Page } from 'playwright-core';
import { beforeEach } from 'vitest';

export interface UpstreamClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  /** `client_secret_basic` unless given. */
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post';
  /** Every ID token carries `auth_time` (OpenID Connect Dynamic Client Registration's metadata); otherwise only when asked for. */
  require_auth_time?: boolean;
}

/** What the provider says about a person; only the claims given are said. */
export interface UpstreamAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
  /** The ID token's `amr` (e.g. ['pwd', 'mfa']); none when left out. */
  amr?: string[];
}

interface UpstreamProviderOptions {
  clients: UpstreamClient[];
  /** login (what is typed on the provider's login page) -> the account's claims */
  accounts: Record<string, UpstreamAccount>;
  /** Client ids whose `prompt=login` and `max_age` the provider never sees (see above). */
  ignoresReauthentication?: readonly string[];
}

export interface UpstreamProvider {
  /** `http://127.0.0.1:<port>` (no trailing slash), as its discovery document says. */
  issuer: string;
  port: number;
  /** The node-oidc-provider instance (a Koa app), for events and anything the options do not cover. */
  provider: ProviderType;
  /** Its notices, errors and requests (`METHOD path -> status`), in order. */
  logs: string[];
  /** The parameters of every authorization request (`GET /auth`), as they arrived, in order. */
  authorizationRequests: URLSearchParams[];
  close(): Promise<void>;
}

/** `amr` is the session's (see above); listed under `openid` so that the ID token may carry it. */
const SCOPE_CLAIMS = { openid: ['sub', 'amr'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'] };
const HOUR = 3600;

/** Runs `fn` with oidc-provider's console notices (`oidc-provider WARNING: ...`) kept in `logs`. */
async function quietly<T>(logs: string[], fn: () => T | Promise<T>): Promise<T> {
  const { warn, info } = console;
  const keep =
    (original: (...args: unknown[]) => void) =>
    (...args: unknown[]): void => {
      const text = args.map(String).join(' ');
      if (text.includes('oidc-provider ')) logs.push(text);
      else original(...args);
    };
  console.warn = keep(warn);
  console.info = keep(info);
  try {
    return await fn();
  } finally {
    console.warn = warn;
    console.info = info;
  }
}

async function readForm(req: http.IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export async function startUpstreamProvider(options: UpstreamProviderOptions): Promise<UpstreamProvider> {
  const logs: string[] = [];
  const authorizationRequests: URLSearchParams[] = [];
  const ignoring = new Set(options.ignoresReauthentication ?? []);
  const byLogin = new Map(Object.entries(options.accounts));
  const bySub = new Map([...byLogin.values()].map((account) => [account.sub, account]));

  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const provider = await quietly(logs, async () => {
    const { default: Provider } = await import('oidc-provider');
    return new Provider(issuer, {
      clients: options.clients.map((client) => ({
        token_endpoint_auth_method: 'client_secret_basic',
        ...client,
        grant_types: ['authorization_code'],
        response_types: ['code'],
      })),
      claims: SCOPE_CLAIMS,
      scopes: ['openid', 'email', 'profile'],
      conformIdTokenClaims: false,
      pkce: { required: () => true },
      features: { devInteractions: { enabled: true } },
      async findAccount(_ctx, sub) {
        const account = bySub.get(sub);
        if (!account) return undefined;
        return {
          accountId: sub,
          claims() {
            const { amr: _amr, ...claims } = account;
            return claims;
          },
        };
      },
      jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'upstream-test', alg: 'RS256', use: 'sig' }] },
      cookies: {
        keys: [randomBytes(32).toString('base64url')],
        names: { session: `upstream${port}_session`, interaction: `upstream${port}_interaction`, resume: `upstream${port}_resume` },
      },
      ttl: { AccessToken: HOUR, AuthorizationCode: 60, ClientCredentials: HOUR, DeviceCode: 600, Grant: HOUR, IdToken: HOUR, Interaction: HOUR, RefreshToken: HOUR, Session: HOUR },
      clientBasedCORS: () => false,
      renderError(ctx, out) {
        ctx.type = 'text';
        ctx.body = `${out.error}: ${String(out.error_description ?? '')}`;
      },
    });
  });

  // Listened to as the EventEmitter it is: the provider's types list each event's own listener.
  const emitter: EventEmitter = provider;
  for (const event of ['server_error', 'authorization.error', 'grant.error', 'userinfo.error', 'discovery.error', 'jwks.error', 'end_session.error']) {
    emitter.on(event, (_ctx: unknown, error: { name?: string; message?: string; error_description?: string }) => {
      logs.push(`${event}: ${error.name ?? ''} ${error.message ?? ''} ${error.error_description ?? ''}`.trim());
    });
  }
  // Koa's own 'error' event (a throw outside the provider's handlers); without a listener Koa prints it.
  emitter.on('error', (error: Error) => logs.push(`koa error: ${error.stack ?? error.message}`));

  provider.use(async (ctx, next) => {
    await next();
    logs.push(`${ctx.method} ${ctx.path} -> ${ctx.status}`);
    // devInteractions' pages import a web font from fonts.googleapis.com; the test machines are off
    // the network, so the import is left out rather than left to time out.
    if (typeof ctx.body === 'string' && ctx.response.is('html')) {
      ctx.body = ctx.body.replace(/@import url\(https:\/\/fonts\.googleapis\.com[^)]*\);/g, '');
    }
  });
  // Authorization requests as they arrived; a client's that the provider does not support
  // prompt=login and max_age for lose them here, before the provider reads its parameters.
  provider.use(async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/auth') {
      const params = new URLSearchParams(ctx.querystring);
      authorizationRequests.push(params);
      if (ignoring.has(params.get('client_id') ?? '')) {
        const kept = new URLSearchParams(params);
        kept.delete('prompt');
        kept.delete('max_age');
        ctx.querystring = kept.toString();
      }
    }
    await next();
  });
  // The login form's submission (POST /interaction/<uid> while the interaction's prompt is `login`):
  // the login typed names the account; the session is the account's `sub`, with its `amr`. The
  // password is not checked (devInteractions does not either). Everything else goes on to the provider.
  provider.use(async (ctx, next) => {
    const uid = /^\/interaction\/([^/]+)$/.exec(ctx.path)?.[1];
    const interaction = ctx.method === 'POST' && uid !== undefined ? await provider.interactionDetails(ctx.req, ctx.res).catch(() => undefined) : undefined;
    if (interaction === undefined || interaction.uid !== uid || interaction.prompt.name !== 'login') {
      await next();
      return;
    }
    const login = (await readForm(ctx.req)).get('login') ?? '';
    const account = byLogin.get(login);
    if (!account) {
      ctx.status = 400;
      ctx.type = 'text';
      ctx.body = `no test account with the login ${JSON.stringify(login)} at this provider`;
      return;
    }
    ctx.respond = false;
    const amr = account.amr ? { amr: account.amr } : {};
    await provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: account.sub, ...amr } }, { mergeWithLastSubmission: false });
  });

  const handle = provider.callback();
  server.on('request', (req, res) => void handle(req, res));
  return {
    issuer,
    port,
    provider,
    logs,
    authorizationRequests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Prints the provider's `logs` when a test of the calling suite fails. */
export function showUpstreamLogsOnFailure(upstream: () => UpstreamProvider | undefined): void {
  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => {
      const logs = upstream()?.logs ?? [];
      process.stderr.write(`\n--- upstream provider log (${logs.length} lines) ---\n${logs.join('\n')}\n---\n`);
    });
  });
}

/**
 * What a person does on the provider's pages: waits for its login page, types `login` (and a
 * password, which the provider does not check), presses "Sign-in", then on the consent prompt
 * presses "Continue" (or, with `consent: 'cancel'`, the "[ Cancel ]" link, which sends the browser
 * back with `error=access_denied`). Returns once the browser has left the provider and the page it
 * went to has loaded. Call it right after the click or `goto` that leads to the provider.
 */
export async function signInAtUpstream(page: Page, login: string, { consent = 'allow' }: { consent?: 'allow' | 'cancel' } = {}): Promise<void> {
  const loginForm = page.locator('form:has(input[name=prompt][value=login])');
  const consentForm = page.locator('form:has(input[name=prompt][value=consent])');
  await loginForm.waitFor();
  const { origin } = new URL(page.url());
  const left = (url: URL): boolean => url.origin !== origin;

  await loginForm.locator('input[name=login]').fill(login);
  await loginForm.locator('input[name=password]').fill('any password');
  await loginForm.locator('button[type=submit]').click();
  // The provider asks for consent, or (consent already given in this session) sends the browser back.
  const consentShown = consentForm.waitFor().then(() => 'consent' as const);
  const gone = page.waitForURL(left).then(() => 'left' as const);
  // The other one is left waiting (it times out, or ends with the page): not an unhandled rejection.
  consentShown.catch(() => {});
  gone.catch(() => {});
  const next = await Promise.race([consentShown, gone]);
  if (next === 'left') return;
  if (consent === 'allow') await consentForm.locator('button[type=submit]').click();
  else await page.locator('a', { hasText: '[ Cancel ]' }).click();
  await page.waitForURL(left);
}

/**
 * What signInAtUpstream does, over HTTP (no browser: the cluster test, the fast tier): follows
 * `authorizationUrl` through the provider with a cookie jar (its own, or `jar`: the provider's
 * cookies of one browser, so that its session there lasts from one sign-in to the next), posts its
 * login form with `login` and its consent form when it shows them, and returns the address the
 * provider sends the browser back to (the service's callback, with `code`, `state` and `iss`),
 * without following it. `forms` lists the forms it answered (`login`, `consent`), in order.
 */
export async function signInAtUpstreamOverHttp(authorizationUrl: string, login: string, jar = new Map<string, string>(), forms: string[] = []): Promise<URL> {
  const send = async (url: URL, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (jar.size > 0) headers.set('Cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const at = pair!.indexOf('=');
      // A cookie set empty is one the provider removed.
      if (at === pair!.length - 1) jar.delete(pair!.slice(0, at));
      else jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return res;
  };
  let url = new URL(authorizationUrl);
  const { origin } = url;
  for (let step = 0; step < 12; step++) {
    const res = await send(url);
    if (res.status === 303 || res.status === 302) {
      url = new URL(res.headers.get('location')!, url);
      if (url.origin !== origin) return url;
      continue;
    }
    const page = await res.text();
    if (res.status !== 200) throw new Error(`the provider answered ${res.status} at ${url.pathname}: ${page}`);
    // Its login form, then its consent form: each posts back to the interaction's address.
    const prompt = /<input type="hidden" name="prompt" value="(login|consent)"\/?>/.exec(page)?.[1];
    const action = /<form[^>]* action="([^"]+)"/.exec(page)?.[1];
    if (!prompt || !action) throw new Error(`no login or consent form at ${url.pathname}: ${page}`);
    const fields: Record<string, string> = prompt === 'login' ? { prompt, login, password: 'any password' } : { prompt };
    forms.push(prompt);
    const posted = await send(new URL(action, url), { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
    if (posted.status !== 303 && posted.status !== 302) throw new Error(`the provider answered ${posted.status} to its ${prompt} form: ${await posted.text()}`);
    url = new URL(posted.headers.get('location')!, url);
    if (url.origin !== origin) return url;
  }
  throw new Error('the provider did not send the browser back within 12 steps');
}
