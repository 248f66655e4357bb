/**
 * Deleting an account, by its user (password and typed name) or by an operator (CLI). The store
 * removes the user and everything hanging off them in one transaction (Store.users.deleteUser); the
 * picture files go afterwards, since a crash between the two leaves only orphan files, which the
 * picture sweep removes, never a user whose files are missing.
 */
import type { Audit } from '../audit.js';
import { InvalidInput, NotFound, SIGN_IN_FIRST, Unauthenticated } from '../domain/errors.js';
import type { PictureStore } from '../pictures/pictures.js';
import type { Store } from '../store/types.js';
import type { AccountDeps } from './accounts.js';
import { confirmPasswordOrPasskey, type Confirmation } from './confirmation.js';

interface DeletionDeps {
  store: Store;
  now: () => number;
  pictures: PictureStore;
  audit: Audit;
}

/** Deletes user `id` with all their data; by whom is recorded in the audit trail. */
export async function deleteUser(deps: DeletionDeps, id: number, by: 'user' | 'operator'): Promise<void> {
  const deleted = await deps.store.users.deleteUser(id, deps.now());
  if (!deleted) throw new NotFound(`User ${id} not found`);
  if (deleted.pfpTimestamp !== null) await deps.pictures.removeAll(id, deleted.pfpTimestamp);
  deps.audit('account_deleted', { userId: id, name: deleted.name, by });
}

/**
 * The signed-in user deletes their own account: `confirm` must be their name, exactly, and they
 * confirm who they are as for a change of factors (the password, or a recent confirmation).
 */
export async function deleteOwnAccount(
  deps: DeletionDeps & AccountDeps,
  input: { userId: number; proof: Confirmation; confirm: string },
  ip: string,
): Promise<void> {
  const user = await deps.store.users.getUser(input.userId);
  if (!user) throw new Unauthenticated(SIGN_IN_FIRST);
  if (input.confirm !== user.name) throw new InvalidInput('Type your name exactly to confirm');
  await confirmPasswordOrPasskey(deps, user, input.proof, ip);
  await deleteUser(deps, user.id, 'user');
}
