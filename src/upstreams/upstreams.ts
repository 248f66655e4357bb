/**
 * The operator's registry of upstream identity providers (issue 41, first step;
 * docs/operations.md#upstream-identity-providers): adding one (by its OpenID Connect issuer, a
 * preset, or an OAuth 2.0 endpoint triple with a claim mapping), turning it on and off, removing
 * it. Each is named by the slug of its shown name. Its client secret is kept only sealed under
 * SESSION_SECRET with a purpose of its own (src/security/sealed.ts), as the signing keys are.
 */
import { Conflict, InvalidInput, NotFound, UniqueViolation } from '../domain/errors.js';
import { CONTROL_CHARACTER, CONTROL_OR_SPACE } from '../domain/text.js';
import { UPSTREAM_NAME_MAX, upstreamSlug, type ClaimMapping, type UpstreamPresetName, type UpstreamRecord } from '../domain/upstreams.js';
import { webAddressProblem } from '../oauth/redirect-uris.js';
import { seal, unseal } from '../security/sealed.js';
import { UPSTREAM_PRESETS } from './presets.js';
import type { Store } from '../store/types.js';

const CLIENT_SECRET_INFO = 'identity-profile-service: upstream client secret encryption';

const CLIENT_ID_MAX = 255;
const CLIENT_SECRET_MAX = 1024;
const SCOPES_MAX = 20;
const CLAIM_MEMBER_MAX = 64;
/** RFC 6749 3.3's scope-token: printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/;
/** What an OpenID Connect upstream is asked for when the operator names no scopes. */
const OIDC_DEFAULT_SCOPES = ['openid', 'email', 'profile'];

interface Deps {
  store: Pick<Store, 'upstreams'>;
  now: () => number;
  /** SESSION_SECRET's values: the first seals the client secret. */
  secrets: readonly string[];
}

/** Where the provider is: exactly one of these. */
export type UpstreamSource =
  | { issuer: string }
  | { preset: UpstreamPresetName }
  | { authorizationEndpoint: string; tokenEndpoint: string; userinfoEndpoint: string; claimMapping: ClaimMapping };

interface NewUpstream {
  name: string;
  source: UpstreamSource;
  /** The scopes to ask for; a preset's own, OpenID Connect's `openid email profile`, or none, when absent. */
  scopes?: readonly string[];
  clientId: string;
  clientSecret: string;
}

/** The address to register at the upstream as the redirect URI. */
export function upstreamCallback(publicUrl: string, slug: string): string {
  return `${publicUrl}/signin/upstream/${slug}/callback`;
}

/** An upstream as the operator CLI shows it: never its client secret, sealed or not. */
export function upstreamView(u: UpstreamRecord, publicUrl: string) {
  return {
    slug: u.slug,
    name: u.name,
    kind: u.kind,
    preset: u.preset,
    issuer: u.issuer,
    authorization_endpoint: u.authorizationEndpoint,
    token_endpoint: u.tokenEndpoint,
    userinfo_endpoint: u.userinfoEndpoint,
    claims: u.claimMapping && { subject: u.claimMapping.subject, name: u.claimMapping.name, email: u.claimMapping.email, email_verified: u.claimMapping.emailVerified },
    scopes: u.scopes,
    client_id: u.clientId,
    enabled: u.enabled,
    trust_mfa: u.trustMfa,
    created_at: u.createdAt,
    callback: upstreamCallback(publicUrl, u.slug),
  };
}

/**
 * Adds an upstream, enabled, its `mfa` not trusted (setUpstreamTrustMfa); Conflict when another
 * one's name has the same slug. `check` (the operator CLI's, src/upstreams/checks.ts) sees the
 * record once the input is valid and before it is stored, and refuses by throwing.
 */
export async function addUpstream(deps: Deps, input: NewUpstream, check?: (record: UpstreamRecord) => Promise<void>): Promise<UpstreamRecord> {
  const { name, slug } = upstreamName(input.name);
  const clientId = checkedClientId(input.clientId);
  const clientSecret = checkedClientSecret(input.clientSecret);
  const settings = upstreamSettings(input.source, input.scopes);
  const record: UpstreamRecord = {
    slug,
    name,
    ...settings,
    clientId,
    clientSecretSealed: await seal(deps.secrets[0]!, CLIENT_SECRET_INFO, clientSecret),
    enabled: true,
    trustMfa: false,
    createdAt: deps.now(),
  };
  await check?.(record);
  try {
    await deps.store.upstreams.addUpstream(record);
  } catch (err) {
    if (err instanceof UniqueViolation) throw new Conflict(`An upstream named "${slug}" exists already`);
    throw err;
  }
  return record;
}

/** Turns an upstream's sign-in on or off, found by its name (any case: its slug); returns it as it is now. */
export async function setUpstreamEnabled(store: Pick<Store, 'upstreams'>, name: string, enabled: boolean): Promise<UpstreamRecord> {
  const slug = upstreamSlug(name);
  if (slug === '' || !(await store.upstreams.setUpstreamEnabled(slug, enabled))) throw upstreamNotFound(name);
  const upstream = await store.upstreams.getUpstream(slug);
  if (!upstream) throw upstreamNotFound(name);
  return upstream;
}

/**
 * Whether an upstream's `amr` `mfa` counts as a second factor here, found by its name as
 * setUpstreamEnabled finds it; returns it as it is now (docs/account.md#trusting-an-upstreams-mfa).
 */
export async function setUpstreamTrustMfa(store: Pick<Store, 'upstreams'>, name: string, trustMfa: boolean): Promise<UpstreamRecord> {
  const slug = upstreamSlug(name);
  if (slug === '' || !(await store.upstreams.setUpstreamTrustMfa(slug, trustMfa))) throw upstreamNotFound(name);
  const upstream = await store.upstreams.getUpstream(slug);
  if (!upstream) throw upstreamNotFound(name);
  return upstream;
}

/** An upstream found by its name as setUpstreamEnabled finds it. */
export async function upstreamByName(store: Pick<Store, 'upstreams'>, name: string): Promise<UpstreamRecord> {
  const slug = upstreamSlug(name);
  const upstream = slug === '' ? undefined : await store.upstreams.getUpstream(slug);
  if (!upstream) throw upstreamNotFound(name);
  return upstream;
}

/** Removes an upstream, found by its name as setUpstreamEnabled finds it. */
export async function removeUpstream(store: Pick<Store, 'upstreams'>, name: string): Promise<void> {
  const slug = upstreamSlug(name);
  if (slug === '' || !(await store.upstreams.removeUpstream(slug))) throw upstreamNotFound(name);
}

/** The client secret of an upstream, unsealed; undefined when none of `secrets` opens it (SESSION_SECRET changed without the old value kept). */
export async function upstreamClientSecret(secrets: readonly string[], upstream: UpstreamRecord): Promise<string | undefined> {
  return unseal(secrets, CLIENT_SECRET_INFO, upstream.clientSecretSealed);
}

function upstreamNotFound(name: string): NotFound {
  return new NotFound(`Upstream "${name}" not found`);
}

function upstreamName(typed: string): { name: string; slug: string } {
  const name = typed.trim();
  if (name.length < 1 || name.length > UPSTREAM_NAME_MAX) throw new InvalidInput(`Upstream name must be 1 to ${UPSTREAM_NAME_MAX} characters`);
  if (CONTROL_CHARACTER.test(name)) throw new InvalidInput('Upstream name must not contain control characters');
  const slug = upstreamSlug(name);
  if (slug === '') throw new InvalidInput('Upstream name must contain a letter (a-z) or a digit');
  return { name, slug };
}

function checkedClientId(clientId: string): string {
  if (clientId.length < 1 || clientId.length > CLIENT_ID_MAX || CONTROL_OR_SPACE.test(clientId)) {
    throw new InvalidInput(`Client id must be 1 to ${CLIENT_ID_MAX} characters without spaces or control characters`);
  }
  return clientId;
}

function checkedClientSecret(secret: string): string {
  if (secret.length < 1 || secret.length > CLIENT_SECRET_MAX || CONTROL_CHARACTER.test(secret)) {
    throw new InvalidInput(`Client secret must be 1 to ${CLIENT_SECRET_MAX} characters without control characters`);
  }
  return secret;
}

/** An address the service calls or sends a browser to: https, or http on localhost (tests run an upstream there). */
function checkedAddress(uri: string, label: string): string {
  const problem = webAddressProblem(uri, label);
  if (problem) throw new InvalidInput(problem);
  return uri;
}

function checkedScopes(scopes: readonly string[]): string[] {
  const unique = [...new Set(scopes)];
  for (const scope of unique) {
    if (!SCOPE_TOKEN.test(scope)) throw new InvalidInput(`Scope must be 1 to 64 printable characters without spaces, quotes or backslashes: ${JSON.stringify(scope)}`);
  }
  if (unique.length > SCOPES_MAX) throw new InvalidInput(`At most ${SCOPES_MAX} scopes`);
  return unique;
}

function checkedClaimMapping(mapping: ClaimMapping): ClaimMapping {
  const member = (value: string): string => {
    if (value.length < 1 || value.length > CLAIM_MEMBER_MAX || CONTROL_OR_SPACE.test(value)) {
      throw new InvalidInput(`A claim mapping's member must be 1 to ${CLAIM_MEMBER_MAX} characters without spaces or control characters: ${JSON.stringify(value)}`);
    }
    return value;
  };
  return {
    subject: member(mapping.subject),
    name: member(mapping.name),
    email: member(mapping.email),
    emailVerified: mapping.emailVerified === null ? null : member(mapping.emailVerified),
  };
}

type Settings = Pick<UpstreamRecord, 'kind' | 'preset' | 'issuer' | 'authorizationEndpoint' | 'tokenEndpoint' | 'userinfoEndpoint' | 'claimMapping' | 'scopes'>;

function upstreamSettings(source: UpstreamSource, scopes: readonly string[] | undefined): Settings {
  if ('preset' in source) {
    const preset = UPSTREAM_PRESETS[source.preset];
    return {
      kind: preset.kind,
      preset: source.preset,
      issuer: preset.issuer,
      authorizationEndpoint: preset.authorizationEndpoint,
      tokenEndpoint: preset.tokenEndpoint,
      userinfoEndpoint: preset.userinfoEndpoint,
      claimMapping: preset.claimMapping && { ...preset.claimMapping },
      scopes: checkedScopes(scopes ?? preset.scopes),
    };
  }
  const none = { preset: null, issuer: null, authorizationEndpoint: null, tokenEndpoint: null, userinfoEndpoint: null, claimMapping: null };
  if ('issuer' in source) {
    const issuer = checkedAddress(source.issuer, 'Issuer');
    // OpenID Connect Discovery 1.0 3: an issuer has no query (webAddressProblem refuses a fragment).
    if (new URL(issuer).search !== '' || issuer.includes('?')) throw new InvalidInput(`Issuer must not contain a query: ${issuer}`);
    const asked = checkedScopes(scopes ?? OIDC_DEFAULT_SCOPES);
    if (!asked.includes('openid')) throw new InvalidInput('An OpenID Connect upstream must ask for the scope openid');
    return { ...none, kind: 'oidc', issuer, scopes: asked };
  }
  return {
    ...none,
    kind: 'oauth2',
    authorizationEndpoint: checkedAddress(source.authorizationEndpoint, 'Authorization endpoint'),
    tokenEndpoint: checkedAddress(source.tokenEndpoint, 'Token endpoint'),
    userinfoEndpoint: checkedAddress(source.userinfoEndpoint, 'User info endpoint'),
    claimMapping: checkedClaimMapping(source.claimMapping),
    scopes: checkedScopes(scopes ?? []),
  };
}
