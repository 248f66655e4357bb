/**
 * Consent, which the store and the contract call grants (not the token endpoint's grant types:
 * those are src/oauth/grants/): what a user let an app do with their account (either flow),
 * remembered so that the next authorization for no more than that needs no consent page, and
 * listed and revoked on the account page.
 */
import type { components } from '../../generated/api.js';
import type { Audit } from '../audit.js';
import { NotFound } from '../domain/errors.js';
import { SECURITY_EVENTS } from '../domain/security-events.js';
import type { GrantRecord, GrantWithApp } from '../domain/grants.js';
import { knownScopes, type Scope } from './scopes.js';
import type { Store } from '../store/types.js';

interface GrantDeps {
  store: Pick<Store, 'grants'>;
  now: () => number;
  audit: Audit;
}

type GrantView = components['schemas']['Grant'];

/** Whether the grant already gives every one of `scopes`. */
export function covers(grant: Pick<GrantRecord, 'scopes'> | undefined, scopes: readonly Scope[]): boolean {
  return grant !== undefined && scopes.every((s) => grant.scopes.includes(s));
}

/**
 * Records that the user consented to `scopes` for the app. A grant only widens: scopes approved
 * before stay granted (the user approved them and can revoke the whole grant on the account page).
 */
export async function recordConsent(
  deps: GrantDeps,
  input: { userId: number; clientId: string; scopes: readonly Scope[]; flow: 'traditional' | 'game' | 'device' },
): Promise<void> {
  const existing = await deps.store.grants.getGrant(input.userId, input.clientId);
  const scopes = knownScopes([...input.scopes, ...(existing?.scopes ?? [])]);
  await deps.store.grants.saveGrant({ userId: input.userId, clientId: input.clientId, scopes }, deps.now());
  deps.audit('consent_given', { userId: input.userId, clientId: input.clientId, scopes: [...input.scopes], flow: input.flow });
}

/**
 * Whether consent for `scopes` is already on record; when it is, the grant's last use is now
 * (the caller is about to issue a code without asking).
 */
export async function useRememberedGrant(
  deps: Pick<GrantDeps, 'store' | 'now'>,
  input: { userId: number; clientId: string; scopes: readonly Scope[] },
): Promise<boolean> {
  const grant = await deps.store.grants.getGrant(input.userId, input.clientId);
  if (!covers(grant, input.scopes)) return false;
  await deps.store.grants.touchGrant(input.userId, input.clientId, deps.now());
  return true;
}

function grantView(g: GrantWithApp): GrantView {
  return {
    client_id: g.clientId,
    app_name: g.appName,
    owner: { id: g.ownerId, name: g.ownerName },
    scopes: knownScopes(g.scopes),
    granted_at: g.createdAt,
    last_used_at: g.lastUsedAt,
  };
}

export async function listGrants(store: Pick<Store, 'grants'>, userId: number): Promise<GrantView[]> {
  return (await store.grants.listGrants(userId)).map(grantView);
}

/**
 * Takes an app's access back: the grant goes, and what the security event `grant_revoked` ends
 * (every live token of the user for the app, its unused codes, its approved device codes not yet
 * redeemed) in one transaction, so the app's next whois fails and its next authorization asks again.
 */
export async function revokeGrant(deps: GrantDeps, userId: number, clientId: string): Promise<void> {
  if (!(await deps.store.grants.revokeGrant(userId, clientId, deps.now(), SECURITY_EVENTS.grant_revoked))) throw new NotFound('No grant for this app');
  deps.audit('grant_revoked', { userId, clientId });
}
