/**
 * The signed-in account's linked identities at upstream identity providers
 * (docs/account.md#linked-accounts): listed on the account page and through the API, and unlinked
 * once the person confirmed who they are, never the account's last way in. Linking is the
 * upstream sign-in's (src/upstreams/sign-in.ts, `link=true`).
 */
import type { components } from '../../generated/api.js';
import type { Audit } from '../audit.js';
import { Conflict, NotFound } from '../domain/errors.js';
import { SECURITY_EVENTS } from '../domain/security-events.js';
import type { UpstreamIdentityRecord } from '../domain/upstreams.js';
import { isLastWayIn, type UserRecord } from '../domain/users.js';
import type { Store } from '../store/types.js';
import type { AccountDeps } from '../accounts/accounts.js';
import { confirmPasswordOrPasskey, type Confirmation } from '../accounts/confirmation.js';

type UpstreamIdentity = components['schemas']['UpstreamIdentity'];

const NOT_FOUND = 'Linked account not found';
const LAST_WAY_IN = 'This is the last way to sign in to your account: set a password or add a passkey first';

/** What the API shows of a link (the contract's UpstreamIdentity): `email` and `last_used_at` left out when null. */
export function identityView(i: UpstreamIdentityRecord): UpstreamIdentity {
  return {
    id: i.id,
    upstream: i.upstreamSlug,
    upstream_name: i.upstreamName,
    subject: i.subject,
    ...(i.email === null ? {} : { email: i.email }),
    linked_at: i.createdAt,
    ...(i.lastUsedAt === null ? {} : { last_used_at: i.lastUsedAt }),
  };
}

/** The user's linked identities, oldest first. */
export async function listUpstreamIdentities(store: Pick<Store, 'upstreamIdentities'>, userId: number): Promise<UpstreamIdentity[]> {
  return (await store.upstreamIdentities.listUpstreamIdentities(userId)).map(identityView);
}

/**
 * Unlinks the user's identity `id`: 404 when the user has none with this id; 409 when it is the
 * account's last way in (no password, no passkey, no other link), said before the confirmation
 * is asked for, since such an account has no password to give; then the password or a passkey
 * confirmation of this session (`confirmPasswordOrPasskey`), as for every change of a way in. The
 * store decides again atomically (two unlinks racing leave the account one way in), and ends what
 * the security event `upstream_unlinked` ends (every other session, tokens, codes, device approvals).
 */
export async function unlinkUpstreamIdentity(
  deps: AccountDeps & { audit: Audit },
  user: UserRecord,
  id: number,
  proof: Confirmation,
  ip: string,
  keepSessionIdHash?: string,
): Promise<void> {
  const links = await deps.store.upstreamIdentities.listUpstreamIdentities(user.id);
  const link = links.find((l) => l.id === id);
  if (!link) throw new NotFound(NOT_FOUND);
  if (await isLastWayIn(user, links.length, async () => (await deps.store.passkeys.listPasskeys(user.id)).length)) throw new Conflict(LAST_WAY_IN);
  await confirmPasswordOrPasskey(deps, user, proof, ip);
  const outcome = await deps.store.upstreamIdentities.unlinkUpstreamIdentity(user.id, id, SECURITY_EVENTS.upstream_unlinked, deps.now(), keepSessionIdHash);
  if (outcome === 'missing') throw new NotFound(NOT_FOUND);
  if (outcome === 'last') throw new Conflict(LAST_WAY_IN);
  deps.audit('upstream_identity_unlinked', { userId: user.id, upstream: link.upstreamSlug, ip });
}
