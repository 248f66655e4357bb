/** Rows of the upstream_providers table as records (src/domain/upstreams.ts), and records as rows. */
import { UPSTREAM_PRESET_NAMES, type ClaimMapping, type UpstreamPresetName, type UpstreamRecord } from '../../domain/upstreams.js';
import { type Row, num, scopesOf } from '../rows.js';

const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function presetOf(value: unknown): UpstreamPresetName | null {
  return UPSTREAM_PRESET_NAMES.find((p) => p === value) ?? null;
}

/** The claim_mapping column: JSON text of a ClaimMapping, or null. */
function claimMappingOf(value: unknown): ClaimMapping | null {
  if (typeof value !== 'string') return null;
  const m = JSON.parse(value) as Partial<ClaimMapping>;
  return { subject: String(m.subject), name: String(m.name), email: String(m.email), emailVerified: typeof m.emailVerified === 'string' ? m.emailVerified : null };
}

export function toUpstream(r: Row): UpstreamRecord {
  return {
    slug: String(r.slug),
    name: String(r.name),
    kind: r.kind === 'oidc' ? 'oidc' : 'oauth2',
    preset: presetOf(r.preset),
    issuer: strOrNull(r.issuer),
    authorizationEndpoint: strOrNull(r.authorization_endpoint),
    tokenEndpoint: strOrNull(r.token_endpoint),
    userinfoEndpoint: strOrNull(r.userinfo_endpoint),
    claimMapping: claimMappingOf(r.claim_mapping),
    scopes: scopesOf(r.scopes),
    clientId: String(r.client_id),
    clientSecretSealed: String(r.client_secret_sealed),
    // SQLite answers 0 or 1, PostgreSQL a boolean.
    enabled: r.enabled === true || r.enabled === 1,
    trustMfa: r.trust_mfa === true || r.trust_mfa === 1,
    createdAt: num(r.created_at),
  };
}

export function upstreamRow(u: UpstreamRecord): Row {
  return {
    slug: u.slug,
    name: u.name,
    kind: u.kind,
    preset: u.preset,
    issuer: u.issuer,
    authorization_endpoint: u.authorizationEndpoint,
    token_endpoint: u.tokenEndpoint,
    userinfo_endpoint: u.userinfoEndpoint,
    claim_mapping: u.claimMapping === null ? null : JSON.stringify(u.claimMapping),
    scopes: u.scopes.join(' '),
    client_id: u.clientId,
    client_secret_sealed: u.clientSecretSealed,
    enabled: u.enabled,
    trust_mfa: u.trustMfa,
    created_at: u.createdAt,
  };
}
