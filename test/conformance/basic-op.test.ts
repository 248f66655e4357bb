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

  module('oidcc-refresh-token', async (m) => {
    const server = await configured(m);
    // GetStaticClient2Configuration: the second client of the configuration.
    m.require('GetStaticClient2Configuration', () => (op.clientSecretPost.client_id ? undefined : 'no client2'));
    const scopes = server.metadata.scopes_supported;
    const offline = Array.isArray(scopes) && scopes.includes('offline_access');
    const { tokens } = await happyFlow(m, op, server, new Browser(op), { extra: offline ? { scope: 'openid offline_access', prompt: 'consent' } : {} });
    const grants = server.metadata.grant_types_supported;
    if (tokens.response.body.refresh_token === undefined) {
      m.check('EnsureServerConfigurationDoesNotSupportRefreshToken', 'WARNING', () => (Array.isArray(grants) && grants.includes('refresh_token') ? 'discovery lists refresh_token but none was issued' : undefined));
      m.skip('no refresh_token in the token response');
    }
    m.check('EnsureServerConfigurationSupportsRefreshToken', 'WARNING', () => (Array.isArray(grants) && grants.includes('refresh_token') ? undefined : 'grant_types_supported lacks refresh_token'));
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
