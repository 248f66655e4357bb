/**
 * What the operator's `admin upstream add` and `admin upstream test` check of an upstream
 * (docs/operations.md#checking-an-upstream): the key the command sees is the server's, the client
 * secret unseals with it, the issuer's discovery document is reachable and valid, and the token
 * endpoint is reachable and takes the client's id and secret. Each check says what it found in one
 * line, never a secret.
 */
import { Unavailable } from '../domain/errors.js';
import type { UpstreamRecord } from '../domain/upstreams.js';
import { opensSigningKey } from '../oauth/keys.js';
import { failureDetail, probeTokenEndpoint } from './client.js';
import { upstreamClientSecret } from './upstreams.js';
import type { Store } from '../store/types.js';

/** How long the discovery document may take to come. */
const DISCOVERY_TIMEOUT_MS = 10_000;

interface Check {
  /** What was checked: `SESSION_SECRET`, `client secret`, `discovery`, `token endpoint`. */
  name: string;
  ok: boolean;
  /** What was found, or why it failed. */
  says: string;
}

/**
 * Whether `secrets` (the SESSION_SECRET the command sees) are the running server's: they open the
 * signing key the server sealed (src/oauth/keys.ts). Passes, saying so, when the server has sealed
 * nothing yet (it never started on this database).
 */
export async function sessionKeyCheck(store: Pick<Store, 'signingKeys'>, secrets: readonly string[]): Promise<Check & { nothingSealed?: true }> {
  const opens = await opensSigningKey(store, secrets);
  const name = 'SESSION_SECRET';
  if (opens === undefined) return { name, ok: true, nothingSealed: true, says: 'nothing the server sealed is in the database yet (no ID-token signing key), so it cannot be compared with the server\'s' };
  if (opens) return { name, ok: true, says: "it opens the ID-token signing key the server sealed: it is the server's" };
  return {
    name,
    ok: false,
    says: "the key this command sees (SESSION_SECRET) is not the server's: it does not open the ID-token signing key the server sealed; run the command with the server's SESSION_SECRET",
  };
}

/** Whether the upstream's sealed client secret opens with `secrets`; the secret itself when it does. */
async function clientSecretCheck(secrets: readonly string[], upstream: UpstreamRecord): Promise<Check & { secret?: string }> {
  const secret = await upstreamClientSecret(secrets, upstream);
  if (secret === undefined) return { name: 'client secret', ok: false, says: 'SESSION_SECRET does not unseal it: add the upstream again with the server\'s SESSION_SECRET' };
  return { name: 'client secret', ok: true, says: 'SESSION_SECRET unseals it', secret };
}

/**
 * The issuer's discovery document (OpenID Connect Discovery 1.0 4): reachable, a JSON object that
 * names this issuer (exactly) and has an authorization and a token endpoint.
 */
export async function discoveryCheck(issuer: string): Promise<Check> {
  const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  const failed = (why: string): Check => ({ name: 'discovery', ok: false, says: `${url} ${why}` });
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS), headers: { Accept: 'application/json' } });
  } catch (err) {
    return failed(`cannot be reached (${failureDetail(err)})`);
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    return failed(`answered ${response.status}, not 200`);
  }
  const metadata: unknown = await response.json().catch(() => undefined);
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return failed('is not a JSON object');
  const { issuer: named, authorization_endpoint: authorization, token_endpoint: token } = metadata as Record<string, unknown>;
  if (named !== issuer) return failed(`names the issuer ${JSON.stringify(named)}, not ${JSON.stringify(issuer)}`);
  const missing = [typeof authorization === 'string' ? undefined : 'authorization_endpoint', typeof token === 'string' ? undefined : 'token_endpoint'].filter(Boolean);
  if (missing.length > 0) return failed(`has no ${missing.join(' and no ')}`);
  return { name: 'discovery', ok: true, says: `${url} names the issuer, an authorization and a token endpoint` };
}

/** The token endpoint, asked to redeem a code that cannot exist with the client's id and secret (probeTokenEndpoint). */
async function tokenEndpointCheck(upstream: UpstreamRecord, clientSecret: string, callback: string, now: number): Promise<Check> {
  const name = 'token endpoint';
  let answer;
  try {
    answer = await probeTokenEndpoint(upstream, clientSecret, callback, now);
  } catch (err) {
    if (!(err instanceof Unavailable)) throw err;
    const detail = (err as { detail?: unknown }).detail;
    return { name, ok: false, says: typeof detail === 'string' ? `cannot be reached (${detail})` : err.message };
  }
  if ('answered' in answer) return { name, ok: true, says: `reachable (to a made-up code it answered: ${answer.answered})` };
  if (answer.error === 'invalid_client' || answer.error === 'unauthorized_client') {
    return { name, ok: false, says: `it refused the client id and secret (${answer.status} ${answer.error})` };
  }
  return { name, ok: true, says: `reachable, and took the client id and secret (to a made-up code it answered ${answer.status} ${answer.error})` };
}

/** Every check of a registered upstream, in order; a check that needs what an earlier one failed to give says so. */
export async function upstreamChecks(deps: { store: Pick<Store, 'signingKeys'>; secrets: readonly string[]; now: () => number }, upstream: UpstreamRecord, callback: string): Promise<Check[]> {
  const { nothingSealed: _, ...key } = await sessionKeyCheck(deps.store, deps.secrets);
  const checks: Check[] = [key];
  const { secret, ...unsealed } = await clientSecretCheck(deps.secrets, upstream);
  checks.push(unsealed);
  let discovered = true;
  if (upstream.kind === 'oidc' && upstream.issuer) {
    const discovery = await discoveryCheck(upstream.issuer);
    discovered = discovery.ok;
    checks.push(discovery);
  }
  if (secret === undefined) checks.push({ name: 'token endpoint', ok: false, says: 'not tried: the client secret cannot be unsealed' });
  else if (!discovered) checks.push({ name: 'token endpoint', ok: false, says: 'not tried: discovery failed' });
  else checks.push(await tokenEndpointCheck(upstream, secret, callback, deps.now()));
  return checks;
}
