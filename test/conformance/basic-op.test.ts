/**
 * The OpenID Foundation's Basic OP plan (`oidcc-basic-certification-test-plan`, OIDCCBasicTestPlan:
 * response_type code, client_secret_basic, and client_secret_post for its one module of group B;
 * discovery; a static client), module by module, each one test named by its module. The modules
 * the plan removes for a static client (oidcc-idtoken-signature, oidcc-idtoken-unsigned,
 * oidcc-request-uri-unsigned-…) are not in it. What each module sends and checks follows the
 * suite's source; docs/oauth.md#openid-conformance has the table of results.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import { moduleTest, reportTable, shannonBits, type ModuleRun, type Verdict } from './harness.js';
import {
  authorizationRequest,
  authorizationUrl,
  browse,
  Browser,
  callTokenEndpoint,
  callUserInfo,
  checkErrorRedirect,
  configure,
  ERROR_DESCRIPTION,
  exchangeCode,
  halfHash,
  happyFlow,
  processCallback,
  randomValue,
  REDIRECT_URI,
  RP_BASE,
  requestProtectedResource,
  skipIfScopesNotSupported,
  startOp,
  validateReturnedClaims,
  validateUserInfo,
  type Landing,
  type Op,
  type Server,
  type StaticClient,
  type Tokens,
} from './relying-party.js';

let op: Op;
const verdicts: Verdict[] = [];
beforeAll(async () => {
  op = await startOp();
});
afterAll(async () => {
  process.stdout.write(`\noidcc-basic-certification-test-plan\n${reportTable(verdicts)}\n`);
  await op?.close();
});

const module = (name: string, body: (m: ModuleRun) => Promise<void>): void => moduleTest(verdicts, name, body);

const seconds = (n: number): void => op.t.clock.advance(n * 1000);

/** The page the browser stopped on, for a screenshot placeholder: its status and heading, and the message. */
function seenPage(landing: Landing): string | undefined {
  if ('callback' in landing) return undefined;
  const heading = /<h1>([^<]*)<\/h1>/.exec(landing.page)?.[1] ?? '';
  const message = /<p class="error"[^>]*>([^<]*)<\/p>/.exec(landing.page)?.[1] ?? /<main[^>]*>[\s\S]*?<p>([^<]*)<\/p>/.exec(landing.page)?.[1] ?? '';
  return `HTTP ${landing.status} page "${heading}"${message ? `: ${message}` : ''}`;
}

/** EnsureIdTokenDoesNotContainNonRequestedClaims: only protocol claims and those of the requested scopes. */
function nonRequestedClaims(tokens: Tokens, scopes: readonly string[]): string | undefined {
  const allowed = new Set(['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'acr', 'amr', 'azp', 'at_hash', 'c_hash', 'nbf', 'jti', 'sid', 's_hash', 'openbanking_intent_id', 'txn']);
  const scopeClaims: Record<string, string[]> = { openid: ['sub'] };
  for (const scope of scopes) for (const claim of scopeClaims[scope] ?? []) allowed.add(claim);
  const extra = Object.keys(tokens.claims).filter((c) => !allowed.has(c));
  return extra.length ? `not requested: ${extra.join(', ')}` : undefined;
}

async function configured(m: ModuleRun, auth: 'client_secret_basic' | 'client_secret_post' = 'client_secret_basic'): Promise<Server> {
  return configure(m, op, auth);
}

/** The token endpoint's refusal of a reused code (§2.11, AbstractOIDCCAuthCodeReuse.checkResponse). */
function checkReuseRefusal(m: ModuleRun, status: number, type: string, body: Record<string, unknown>): void {
  m.check('CheckTokenEndpointHttpStatus400', 'FAILURE', () => (status === 400 ? undefined : `HTTP ${status}`));
  m.check('CheckTokenEndpointReturnedJsonContentType', 'FAILURE', () => (type.split(';')[0] === 'application/json' ? undefined : type));
  m.check('CheckErrorFromTokenEndpointResponseErrorInvalidGrant', 'FAILURE', () => (body.error === 'invalid_grant' ? undefined : `error ${String(body.error)}`));
  m.check('ValidateErrorFromTokenEndpointResponseError', 'FAILURE', () => (typeof body.error === 'string' && /^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/.test(body.error) ? undefined : 'error'));
  m.check('CheckErrorDescriptionFromTokenEndpointResponseErrorContainsCRLFTAB', 'WARNING', () =>
    typeof body.error_description === 'string' && /[\r\n\t]/.test(body.error_description) ? 'CR, LF or TAB' : undefined,
  );
  m.check('ValidateErrorDescriptionFromTokenEndpointResponseError', 'FAILURE', () =>
    body.error_description === undefined || (typeof body.error_description === 'string' && ERROR_DESCRIPTION.test(body.error_description)) ? undefined : 'characters outside RFC 6749',
  );
  m.check('ValidateErrorUriFromTokenEndpointResponseError', 'FAILURE', () => (body.error_uri === undefined || (typeof body.error_uri === 'string' && URL.canParse(body.error_uri)) ? undefined : 'error_uri'));
}

/** RFC 6749 A.12 / A.17: an access or refresh token's characters (VSCHAR). */
const VSCHAR = /^[\x20-\x7E]+$/;

/** The claims of a compact JWS, or undefined when it is not one (ExtractIdTokenFromTokenResponse). */
function jwtClaims(token: unknown): Record<string, unknown> | undefined {
  if (typeof token !== 'string') return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString());
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims) ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** CompareIdTokenClaims (OpenID Connect Core 12.2): the refreshed ID token against the first one. */
function compareIdTokenClaims(first: Record<string, unknown>, second: Record<string, unknown>): string | undefined {
  for (const claim of ['iss', 'sub']) {
    if (!(claim in first)) return `Initial id token does not contain a ${claim} claim`;
    if (!(claim in second)) return `Second id token does not contain a ${claim} claim`;
    if (first[claim] !== second[claim]) return `${claim} values are not the same`;
  }
  if (!('iat' in first)) return 'Initial id token does not contain an iat claim';
  if (!('iat' in second)) return 'Second id token does not contain an iat claim';
  if (first.iat === second.iat) return 'iat for the second id token must represent the time it was issued, not be the same as the first';
  if (!('aud' in first)) return 'Initial id token does not contain an aud claim';
  if (!('aud' in second)) return 'Second id token does not contain an aud claim';
  const audiences = (aud: unknown): string => JSON.stringify(Array.isArray(aud) ? [...new Set(aud)].sort() : aud);
  if (audiences(first.aud) !== audiences(second.aud)) return 'aud must be the same as in the first id token';
  if ('auth_time' in second && second.auth_time !== first.auth_time) return 'auth_time claims are not the same';
  if (!('azp' in first) && 'azp' in second) return 'the second id token has azp although the first has none';
  if (('azp' in first || 'azp' in second) && first.azp !== second.azp) return 'azp claims are not the same';
  return undefined;
}

/**
 * RefreshTokenRequestSteps: the refresh request (with `scope` unless it is the second client's,
 * AddScopeToTokenEndpointRequest) a second after the code's answer, and its checks. Answers the
 * new tokens and the refresh token to use next (the old one when none came back).
 */
async function refreshTokenRequest(
  m: ModuleRun,
  server: Server,
  client: StaticClient,
  first: Tokens,
  refreshToken: string,
  scope: string | undefined,
): Promise<{ accessToken: string; tokenType: string; refreshToken: string }> {
  const form: Record<string, string> = { grant_type: 'refresh_token', refresh_token: refreshToken };
  if (scope !== undefined) {
    m.require('AddScopeToTokenEndpointRequest', () => (scope === '' ? 'scope missing/empty in client object' : undefined));
    form.scope = scope;
  }
  seconds(1); // WaitForOneSecond: the new ID token's iat differs from the first one's.
  const res = await callTokenEndpoint(op, server, client, 'client_secret_basic', form);
  const body = res.body;
  m.check('CheckTokenEndpointHttpStatus200', 'FAILURE', () => (res.status === 200 ? undefined : `HTTP ${res.status} ${JSON.stringify(body)}`));
  m.check('CheckTokenEndpointReturnedJsonContentType', 'FAILURE', () => (res.type.split(';')[0]!.trim() === 'application/json' ? undefined : res.type));
  m.check('CheckTokenEndpointCacheHeaders', 'FAILURE', () => {
    const cacheControl = res.headers.get('cache-control');
    if (cacheControl === null) return "no 'cache-control' header";
    return cacheControl.split(',').some((piece) => piece.trim() === 'no-store') ? undefined : `cache-control ${cacheControl} lacks no-store`;
  });
  m.require('CheckIfTokenEndpointResponseError', () => (typeof body.error === 'string' && body.error !== '' ? `error ${JSON.stringify(body)}` : undefined));
  m.require('ExtractAccessTokenFromTokenResponse', () =>
    typeof body.access_token === 'string' && body.access_token !== '' && typeof body.token_type === 'string' && body.token_type !== '' ? undefined : 'no access_token or token_type',
  );
  const accessToken = body.access_token as string;
  m.check('CheckTokenTypeIsBearer', 'FAILURE', () => ((body.token_type as string).toLowerCase() === 'bearer' ? undefined : `token_type ${String(body.token_type)}`));
  m.check('EnsureMinimumAccessTokenEntropy', 'FAILURE', () => (shannonBits(accessToken) > 96 ? undefined : `${shannonBits(accessToken).toFixed(1)} bits`));
  m.check('EnsureAccessTokenContainsAllowedCharactersOnly', 'FAILURE', () => (VSCHAR.test(accessToken) ? undefined : 'characters outside %x20-7E'));
  m.check('ExtractExpiresInFromTokenEndpointResponse', 'WARNING', () => (body.expires_in === undefined ? 'no expires_in' : undefined));
  if (body.expires_in !== undefined) {
    m.check('ValidateExpiresIn', 'FAILURE', () => (typeof body.expires_in === 'number' && body.expires_in > 0 && body.expires_in <= 31_536_000 ? undefined : `expires_in ${String(body.expires_in)}`));
  }
  m.check('EnsureAccessTokenValuesAreDifferent', 'INFO', () => (accessToken === first.accessToken ? 'Access token values are not different' : undefined));
  const claims = jwtClaims(body.id_token);
  m.check('ExtractIdTokenFromTokenResponse', 'INFO', () => (claims ? undefined : 'no id_token (or not a JWT) in the refresh answer'));
  const rotated = body.refresh_token;
  m.check('ExtractRefreshTokenFromTokenResponse', 'INFO', () => (rotated === undefined ? 'Token endpoint response does not contain a refresh token' : undefined));
  if (rotated !== undefined) {
    const value = typeof rotated === 'string' ? rotated : '';
    m.check('EnsureMinimumRefreshTokenLength', 'FAILURE', () => (value !== '' && Buffer.byteLength(value) * 8 >= 128 ? undefined : `${Buffer.byteLength(value) * 8} bits, fewer than 128`));
    m.check('EnsureMinimumRefreshTokenEntropy', 'FAILURE', () => (value !== '' && shannonBits(value) > 96 ? undefined : `${shannonBits(value).toFixed(1)} bits`));
  }
  if (claims) m.check('CompareIdTokenClaims', 'FAILURE', () => compareIdTokenClaims(first.claims, claims));
  return { accessToken, tokenType: body.token_type as string, refreshToken: typeof rotated === 'string' && rotated !== '' ? rotated : refreshToken };
}

/** RefreshTokenRequestExpectingErrorSteps: a refresh the token endpoint must refuse with 400 invalid_grant. */
async function refreshTokenRequestExpectingError(m: ModuleRun, server: Server, client: StaticClient, refreshToken: string, scope: string | undefined): Promise<void> {
  const form: Record<string, string> = { grant_type: 'refresh_token', refresh_token: refreshToken };
  if (scope !== undefined) {
    m.require('AddScopeToTokenEndpointRequest', () => (scope === '' ? 'scope missing/empty in client object' : undefined));
    form.scope = scope;
  }
  const res = await callTokenEndpoint(op, server, client, 'client_secret_basic', form);
  const body = res.body;
  m.require('ValidateErrorFromTokenEndpointResponseError', () =>
    typeof body.error !== 'string' || body.error === '' ? `an error was expected: HTTP ${res.status} ${JSON.stringify(body)}` : /^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/.test(body.error) ? undefined : 'error has characters outside %x20-21 / %x23-5B / %x5D-7E',
  );
  m.check('CheckTokenEndpointHttpStatus400', 'FAILURE', () => (res.status === 400 ? undefined : `HTTP ${res.status}`));
  m.check('CheckTokenEndpointReturnedJsonContentType', 'FAILURE', () => (res.type.split(';')[0]!.trim() === 'application/json' ? undefined : res.type));
  m.check('CheckErrorFromTokenEndpointResponseErrorInvalidGrant', 'FAILURE', () => (body.error === 'invalid_grant' ? undefined : `error ${String(body.error)}`));
}

/** The second authorization of a module that signs in twice, in the same browser. */
async function secondAuthorization(m: ModuleRun, server: Server, browser: Browser, extra: Record<string, string>): Promise<{ tokens: Tokens; landing: Landing }> {
  const sent = authorizationRequest(op.client, extra);
  const landing = await browse(browser, op, { url: authorizationUrl(server, sent) });
  const code = processCallback(m, server, landing, sent);
  const tokens = await exchangeCode(m, op, server, op.client, 'client_secret_basic', code, sent);
  await requestProtectedResource(m, op, server, tokens);
  return { tokens, landing };
}

const sameAuthTime = (m: ModuleRun, first: Tokens, second: Tokens): void => {
  m.check('CheckIdTokenAuthTimeClaimsSameIfPresent', 'FAILURE', () =>
    first.claims.auth_time === undefined || second.claims.auth_time === undefined || first.claims.auth_time === second.claims.auth_time ? undefined : 'auth_time differs',
  );
  m.check('CheckIdTokenSubConsistentForSecondAuthorization', 'FAILURE', () => (first.claims.sub === second.claims.sub ? undefined : 'sub differs'));
};

const laterAuthTime = (m: ModuleRun, first: Tokens, second: Tokens): void => {
  m.check('CheckSecondIdTokenAuthTimeIsLaterIfPresent', 'FAILURE', () =>
    first.claims.auth_time === undefined || second.claims.auth_time === undefined || (second.claims.auth_time as number) > (first.claims.auth_time as number)
      ? undefined
      : `auth_time ${JSON.stringify(second.claims.auth_time)} is not later than ${JSON.stringify(first.claims.auth_time)}`,
  );
};

/** ExpectSecondLoginPage: the browser was shown the sign-in page again. */
const expectSecondLoginPage = (m: ModuleRun, landing: Landing): void => {
  m.check('ExpectSecondLoginPage', 'FAILURE', () => (landing.signInPages > 0 ? undefined : 'no sign-in page was shown'));
  m.placeholder('the sign-in page, asking for the password again');
};

/** An unsigned request object (SerializeRequestObjectWithNullAlgorithm) of these claims. */
const unsignedRequestObject = (claims: Record<string, string>): string =>
  `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;

describe('oidcc-basic-certification-test-plan', () => {
  module('oidcc-server', async (m) => {
    const server = await configured(m);
    const { tokens, code } = await happyFlow(m, op, server, new Browser(op));
    m.check('EnsureMinimumAuthorizationCodeLength', 'FAILURE', () => (Buffer.byteLength(code) >= 16 ? undefined : 'shorter than 128 bits'));
    m.check('EnsureMinimumAuthorizationCodeEntropy', 'FAILURE', () => (shannonBits(code) > 96 ? undefined : `${shannonBits(code).toFixed(1)} bits`));
    m.check('ExtractExpiresInFromTokenEndpointResponse', 'WARNING', () => (tokens.response.body.expires_in === undefined ? 'no expires_in' : undefined));
    if (tokens.claims.at_hash !== undefined) m.check('ValidateAtHash', 'FAILURE', () => (tokens.claims.at_hash === halfHash(tokens.accessToken) ? undefined : 'at_hash'));
    if (tokens.claims.c_hash !== undefined) m.check('ValidateCHash', 'FAILURE', () => (tokens.claims.c_hash === halfHash(code) ? undefined : 'c_hash'));
    m.check('EnsureIdTokenDoesNotContainName', 'WARNING', () => ('name' in tokens.claims ? 'name in the ID token' : undefined));
    m.check('EnsureIdTokenDoesNotContainNonRequestedClaims', 'WARNING', () => nonRequestedClaims(tokens, ['openid']));
  });

  module('oidcc-response-type-missing', async (m) => {
    const server = await configured(m);
    const sent = authorizationRequest(op.client, { response_type: undefined });
    const landing = await browse(new Browser(op), op, { url: authorizationUrl(server, sent) });
    if ('callback' in landing) {
      checkErrorRedirect(m, server, landing, sent, ['unsupported_response_type', 'invalid_request'], 'CheckErrorFromAuthorizationEndpointErrorInvalidRequestOrUnsupportedResponseType');
    } else {
      m.placeholder(`${seenPage(landing)} (ExpectResponseTypeMissingErrorPage)`);
    }
  });

  module('oidcc-userinfo-get', async (m) => {
    const server = await configured(m);
    const { tokens } = await happyFlow(m, op, server, new Browser(op));
    validateUserInfo(m, await callUserInfo(op, server, tokens, 'get'), true);
  });

  module('oidcc-userinfo-post-header', async (m) => {
    const server = await configured(m);
    const { tokens } = await happyFlow(m, op, server, new Browser(op));
    validateUserInfo(m, await callUserInfo(op, server, tokens, 'post-header'), true);
  });

  module('oidcc-userinfo-post-body', async (m) => {
    const server = await configured(m);
    const { tokens } = await happyFlow(m, op, server, new Browser(op));
    const res = await callUserInfo(op, server, tokens, 'post-body');
    if (res.status < 200 || res.status > 299) {
      m.check('UserInfoEndpointWithAccessTokenInBodyNotSupported', 'WARNING', () => `HTTP ${res.status}`);
      return;
    }
    validateUserInfo(m, res, true);
  });

  module('oidcc-ensure-request-without-nonce-succeeds-for-code-flow', async (m) => {
    const server = await configured(m);
    const sent = authorizationRequest(op.client, { nonce: undefined });
    processCallback(m, server, await browse(new Browser(op), op, { url: authorizationUrl(server, sent) }), sent);
  });

  for (const [name, scope] of [
    ['oidcc-scope-profile', 'openid profile'],
    ['oidcc-scope-email', 'openid email'],
    ['oidcc-scope-address', 'openid address'],
    ['oidcc-scope-phone', 'openid phone'],
    ['oidcc-scope-all', 'openid email phone address profile'],
  ] as const) {
    module(name, async (m) => {
      const server = await configured(m);
      skipIfScopesNotSupported(m, server, scope);
      const { tokens } = await happyFlow(m, op, server, new Browser(op), { extra: { scope } });
      const info = await validateReturnedClaims(m, op, server, tokens, scope);
      if (name === 'oidcc-scope-email') emailScopeChecks(m, tokens, info);
    });
  }

  /** What oidcc-scope-email adds (and oidcc-alternate-happy-flow inherits). */
  function emailScopeChecks(m: ModuleRun, tokens: Tokens, info: Record<string, unknown>): void {
    m.check('EnsureIdTokenDoesNotContainName', 'WARNING', () => ('name' in tokens.claims ? 'name in the ID token' : undefined));
    m.check('EnsureIdTokenDoesNotContainEmailForScopeEmail', 'WARNING', () => ('email' in tokens.claims ? 'email in the ID token although an access token was issued' : undefined));
    m.check('EnsureUserInfoDoesNotContainName', 'WARNING', () => ('name' in info ? 'name in UserInfo for openid email' : undefined));
  }

  module('oidcc-alternate-happy-flow', async (m) => {
    const server = await configured(m);
    skipIfScopesNotSupported(m, server, 'openid email');
    // ReverseScopeOrderInAuthorizationEndpointRequest, and the parameters in reverse order.
    const sent = authorizationRequest(op.client, { scope: 'email openid' });
    const reversed = Object.fromEntries(Object.entries(sent).reverse());
    const landing = await browse(new Browser(op), op, { url: authorizationUrl(server, reversed) });
    const code = processCallback(m, server, landing, sent);
    const tokens = await exchangeCode(m, op, server, op.client, 'client_secret_basic', code, sent);
    await requestProtectedResource(m, op, server, tokens);
    emailScopeChecks(m, tokens, await validateReturnedClaims(m, op, server, tokens, 'openid email'));
  });

  for (const display of ['page', 'popup']) {
    module(`oidcc-display-${display}`, async (m) => {
      await happyFlow(m, op, await configured(m), new Browser(op), { extra: { display } });
    });
  }

  module('oidcc-prompt-login', async (m) => {
    const server = await configured(m);
    const browser = new Browser(op);
    const first = await happyFlow(m, op, server, browser);
    seconds(1);
    const second = await secondAuthorization(m, server, browser, { prompt: 'login' });
    laterAuthTime(m, first.tokens, second.tokens);
    expectSecondLoginPage(m, second.landing);
  });

  module('oidcc-prompt-none-not-logged-in', async (m) => {
    const server = await configured(m);
    const sent = authorizationRequest(op.client, { prompt: 'none' }, { state: randomValue(128) });
    const landing = await browse(new Browser(op), op, { url: authorizationUrl(server, sent) });
    checkErrorRedirect(m, server, landing, sent, ['interaction_required', 'login_required', 'account_selection_required', 'consent_required'], 'CheckErrorFromAuthorizationEndpointIsOneThatRequiredAUserInterface');
  });

  module('oidcc-prompt-none-logged-in', async (m) => {
    const server = await configured(m);
    const browser = new Browser(op);
    const first = await happyFlow(m, op, server, browser);
    const second = await secondAuthorization(m, server, browser, { prompt: 'none' });
    sameAuthTime(m, first.tokens, second.tokens);
  });

  module('oidcc-max-age-1', async (m) => {
    const server = await configured(m);
    const browser = new Browser(op);
    const first = await happyFlow(m, op, server, browser);
    seconds(2);
    const second = await secondAuthorization(m, server, browser, { max_age: '1' });
    const now = Math.floor(op.t.clock.now() / 1000);
    m.check('CheckIdTokenAuthTimeClaimPresentDueToMaxAge', 'FAILURE', () => (typeof second.tokens.claims.auth_time === 'number' ? undefined : 'no auth_time'));
    laterAuthTime(m, first.tokens, second.tokens);
    m.check('CheckIdTokenAuthTimeIsRecentIfPresent', 'FAILURE', () =>
      second.tokens.claims.auth_time === undefined || (second.tokens.claims.auth_time as number) >= now - 301 ? undefined : 'auth_time is not recent',
    );
    expectSecondLoginPage(m, second.landing);
  });

  module('oidcc-max-age-10000', async (m) => {
    const server = await configured(m);
    const browser = new Browser(op);
    const first = await happyFlow(m, op, server, browser, { extra: { max_age: '15000' } });
    m.check('CheckIdTokenAuthTimeClaimPresentDueToMaxAge', 'FAILURE', () => (typeof first.tokens.claims.auth_time === 'number' ? undefined : 'no auth_time'));
    const second = await secondAuthorization(m, server, browser, { max_age: '10000' });
    m.check('CheckIdTokenAuthTimeClaimPresentDueToMaxAge', 'FAILURE', () => (typeof second.tokens.claims.auth_time === 'number' ? undefined : 'no auth_time'));
    sameAuthTime(m, first.tokens, second.tokens);
  });

  module('oidcc-ensure-request-with-unknown-parameter-succeeds', async (m) => {
    await happyFlow(m, op, await configured(m), new Browser(op), { extra: { extra: 'foobar' } });
  });

  module('oidcc-id-token-hint', async (m) => {
    const server = await configured(m);
    const browser = new Browser(op);
    const first = await happyFlow(m, op, server, browser);
    const second = await secondAuthorization(m, server, browser, { prompt: 'none', id_token_hint: first.tokens.idToken });
    sameAuthTime(m, first.tokens, second.tokens);
  });

  module('oidcc-login-hint', async (m) => {
    const server = await configured(m);
    await happyFlow(m, op, server, new Browser(op), { extra: { login_hint: `buffy@${new URL(server.metadata.issuer as string).hostname}` } });
  });

  module('oidcc-ui-locales', async (m) => {
    await happyFlow(m, op, await configured(m), new Browser(op), { extra: { ui_locales: 'se' } });
  });

  module('oidcc-claims-locales', async (m) => {
    await happyFlow(m, op, await configured(m), new Browser(op), { extra: { claims_locales: 'se' } });
  });

  module('oidcc-ensure-request-with-acr-values-succeeds', async (m) => {
    const server = await configured(m);
    const supported = server.metadata.acr_values_supported;
    const acrValues = Array.isArray(supported) ? supported.join(' ') : '1 2';
    const { tokens } = await happyFlow(m, op, server, new Browser(op), { extra: { acr_values: acrValues } });
    m.check('ValidateIdTokenACRClaimAgainstAcrValuesRequest', 'WARNING', () =>
      typeof tokens.claims.acr === 'string' && acrValues.split(' ').includes(tokens.claims.acr) ? undefined : `acr ${String(tokens.claims.acr)} is not one of ${acrValues}`,
    );
  });

  module('oidcc-codereuse', async (m) => {
    const server = await configured(m);
    const { code, sent } = await happyFlow(m, op, server, new Browser(op));
    const again = await callTokenEndpoint(op, server, op.client, 'client_secret_basic', { grant_type: 'authorization_code', code, redirect_uri: sent.redirect_uri! });
    if (again.status === 200) {
      m.check('ServerAllowedReusingAuthorizationCode', 'WARNING', () => 'the reused code was accepted');
      return;
    }
    checkReuseRefusal(m, again.status, again.type, again.body);
  });

  module('oidcc-codereuse-30seconds', async (m) => {
    const server = await configured(m);
    const { code, sent, tokens } = await happyFlow(m, op, server, new Browser(op));
    seconds(30);
    const again = await callTokenEndpoint(op, server, op.client, 'client_secret_basic', { grant_type: 'authorization_code', code, redirect_uri: sent.redirect_uri! });
    checkReuseRefusal(m, again.status, again.type, again.body);
    // The tokens issued from the reused code should be revoked.
    const userinfo = await callUserInfo(op, server, tokens);
    m.check('EnsureHttpStatusCodeIs4xx', 'WARNING', () => (userinfo.status >= 400 && userinfo.status < 500 ? undefined : `HTTP ${userinfo.status}`));
  });

  module('oidcc-ensure-registered-redirect-uri', async (m) => {
    const server = await configured(m);
    const sent = authorizationRequest(op.client, { redirect_uri: `${REDIRECT_URI}/${randomValue()}` });
    const landing = await browse(new Browser(op), op, { url: authorizationUrl(server, sent) });
    m.require('ExpectRedirectUriErrorPage', () => ('callback' in landing ? `the OP redirected to ${landing.callback.origin}${landing.callback.pathname}` : undefined));
    m.check('ExpectRedirectUriErrorPage', 'FAILURE', () => ('page' in landing && landing.status === 400 && landing.page.includes('The redirect_uri is not registered for this app') ? undefined : 'not the error page'));
    m.placeholder(seenPage(landing)!);
  });

  module('oidcc-ensure-post-request-succeeds', async (m) => {
    const server = await configured(m);
    const sent = authorizationRequest(op.client);
    const landing = await browse(new Browser(op), op, { url: server.metadata.authorization_endpoint as string, form: sent });
    if (!('callback' in landing)) {
      m.check('ExpectRedirectUriHasBeenCalled', 'WARNING', () => `no callback: ${seenPage(landing)}`);
      return;
    }
    const code = processCallback(m, server, landing, sent);
    const tokens = await exchangeCode(m, op, server, op.client, 'client_secret_basic', code, sent);
    await requestProtectedResource(m, op, server, tokens);
  });

  module('oidcc-server-client-secret-post', async (m) => {
    const server = await configured(m, 'client_secret_post');
    await happyFlow(m, op, server, new Browser(op), { client: op.clientSecretPost, auth: 'client_secret_post' });
  });

  module('oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported', async (m) => {
    const server = await configured(m);
    const algs = server.metadata.request_object_signing_alg_values_supported;
    if (Array.isArray(algs) && !algs.includes('none')) m.skip('request_object_signing_alg_values_supported lacks none');
    const inner = authorizationRequest(op.client);
    const query = { client_id: op.client.client_id, redirect_uri: REDIRECT_URI, request: unsignedRequestObject(inner), response_type: 'code', scope: 'openid' };
    const landing = await browse(new Browser(op), op, { url: authorizationUrl(server, query) });
    const callback = m.extract('ExpectRedirectToCallback', 'callback' in landing ? landing.callback : undefined, `the OP showed a page: ${seenPage(landing)}`);
    if (callback.searchParams.get('error') === 'request_not_supported') m.skip('the OP answered request_not_supported');
    m.check('CheckDiscEndpointRequestParameterSupported', 'WARNING', () => (server.metadata.request_parameter_supported === true ? undefined : 'request_parameter_supported is not true'));
    const code = processCallback(m, server, landing, inner);
    await exchangeCode(m, op, server, op.client, 'client_secret_basic', code, inner);
  });

  module('oidcc-claims-essential', async (m) => {
    const server = await configured(m);
    const { tokens } = await happyFlow(m, op, server, new Browser(op), { extra: { claims: JSON.stringify({ userinfo: { name: { essential: true } } }) } });
    const info = await validateReturnedClaims(m, op, server, tokens, 'openid');
    m.check('EnsureUserInfoContainsName', 'WARNING', () => (typeof info.name === 'string' && info.name !== '' ? undefined : 'no name in UserInfo: the claims parameter is not supported'));
    m.check('EnsureIdTokenDoesNotContainName', 'WARNING', () => ('name' in tokens.claims ? 'name in the ID token' : undefined));
  });

  module('oidcc-ensure-request-object-with-redirect-uri', async (m) => {
    const server = await configured(m);
    const algs = server.metadata.request_object_signing_alg_values_supported;
    if (Array.isArray(algs) && !algs.includes('none')) m.skip('request_object_signing_alg_values_supported lacks none');
    const inner = authorizationRequest(op.client);
    const query = { client_id: op.client.client_id, redirect_uri: `${RP_BASE}/callback_invalid`, request: unsignedRequestObject(inner), response_type: 'code', scope: 'openid' };
    const landing = await browse(new Browser(op), op, { url: authorizationUrl(server, query) });
    if ('callback' in landing) {
      m.require('EnsureOPDoesNotUseDefaultRedirectUriInCaseOfInvalidRedirectUri', () => (landing.callback.searchParams.has('error') ? `error=${landing.callback.searchParams.get('error')} sent to the registered redirect URI` : undefined));
      // The request object was processed and its redirect URI used: the happy flow's checks.
      m.check('CheckDiscEndpointRequestParameterSupported', 'WARNING', () => (server.metadata.request_parameter_supported === true ? undefined : 'request_parameter_supported is not true'));
      const code = processCallback(m, server, landing, inner);
      await exchangeCode(m, op, server, op.client, 'client_secret_basic', code, inner);
      return;
    }
    m.check('ExpectRedirectUriErrorPage', 'FAILURE', () => (landing.status === 400 && landing.page.includes('The redirect_uri is not registered for this app') ? undefined : 'not the error page'));
    m.placeholder(seenPage(landing)!);
  });

  /**
   * OIDCCRefreshToken (an AbstractOIDCCMultipleClient): for the client, then client2 in the same
   * browser, the authorization with `openid offline_access` and prompt=consent when discovery lists
   * offline_access, the code's token request, the refresh (client's with its scope, client2's
   * without), UserInfo with the refreshed access token; then client2's refresh token presented by
   * the client must be refused (invalid_grant).
   */
  module('oidcc-refresh-token', async (m) => {
    const server = await configured(m);
    // GetStaticClient2Configuration: the second client of the configuration.
    m.require('GetStaticClient2Configuration', () => (op.clientSecretPost.client_id ? undefined : 'Definition for client2 not present in supplied configuration'));
    // completeClientConfiguration, for both clients: SetScopeInClientConfigurationToOpenId, then …OpenIdOfflineAccessIfServerSupportsOfflineAccess.
    const supported = server.metadata.scopes_supported;
    m.require('SetScopeInClientConfigurationToOpenIdOfflineAccessIfServerSupportsOfflineAccess', () =>
      supported === undefined || Array.isArray(supported) ? undefined : "'scopes_supported' is not a array",
    );
    const scope = Array.isArray(supported) && supported.includes('offline_access') ? 'openid offline_access' : 'openid';
    // AddPromptConsentToAuthorizationEndpointRequestIfScopeContainsOfflineAccess.
    const extra = scope.includes('offline_access') ? { scope, prompt: 'consent' } : { scope };
    const browser = new Browser(op);
    let refreshToken = '';
    for (const [client, second] of [[op.client, false], [op.clientSecretPost, true]] as const) {
      // The second client's nonce is 43 characters (requested_nonce_length).
      const sent = authorizationRequest(client, extra, second ? { nonce: randomValue(43) } : {});
      const landing = await browse(browser, op, { url: authorizationUrl(server, sent) });
      const code = processCallback(m, server, landing, sent);
      const first = await exchangeCode(m, op, server, client, 'client_secret_basic', code, sent);
      // sendRefreshTokenRequestAndCheckIdTokenClaims.
      const body = first.response.body;
      m.check('ExtractRefreshTokenFromTokenResponse', 'INFO', () => (body.refresh_token === undefined ? 'Token endpoint response does not contain a refresh token' : undefined));
      const grants = server.metadata.grant_types_supported;
      if (typeof body.refresh_token !== 'string' || body.refresh_token === '') {
        m.check('EnsureServerConfigurationDoesNotSupportRefreshToken', 'WARNING', () => (Array.isArray(grants) && grants.includes('refresh_token') ? 'discovery lists refresh_token but none was issued' : undefined));
        m.skip('Refresh tokens cannot be tested. No refresh token was issued.');
      }
      const issued = body.refresh_token as string;
      m.check('EnsureServerConfigurationSupportsRefreshToken', 'WARNING', () =>
        grants === undefined ? 'grant_types_supported is not present in the discovery document' : Array.isArray(grants) && grants.includes('refresh_token') ? undefined : 'grant_types_supported lacks refresh_token',
      );
      m.check('EnsureRefreshTokenContainsAllowedCharactersOnly', 'FAILURE', () => (VSCHAR.test(issued) ? undefined : 'characters outside %x20-7E'));
      const refreshed = await refreshTokenRequest(m, server, client, first, issued, second ? undefined : scope);
      refreshToken = refreshed.refreshToken;
      await requestProtectedResource(m, op, server, refreshed);
    }
    // performSecondClientTests: client2's refresh token with the client (and the client's scope).
    await refreshTokenRequestExpectingError(m, server, op.client, refreshToken, scope);
  });

  module('oidcc-ensure-request-with-valid-pkce-succeeds', async (m) => {
    const server = await configured(m);
    const verifier = Array.from({ length: 128 }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~'[Math.floor(Math.random() * 66)]).join('');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const sent = authorizationRequest(op.client, { code_challenge: challenge, code_challenge_method: 'S256' });
    const landing = await browse(new Browser(op), op, { url: authorizationUrl(server, sent) });
    const code = processCallback(m, server, landing, sent);
    const tokens = await exchangeCode(m, op, server, op.client, 'client_secret_basic', code, sent, { code_verifier: verifier });
    await requestProtectedResource(m, op, server, tokens);
  });
});
