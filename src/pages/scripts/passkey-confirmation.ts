/**
 * Confirms the signed-in person again with one of their passkeys (POST /api/account/reauth/passkey):
 * for five minutes, a password field that guards a change may then be left empty.
 */
import { api, reasonOf } from './api.js';
import { authenticate } from './webauthn.js';

/** Undefined when confirmed, else what went wrong, in words. */
export async function confirmWithPasskey(): Promise<string | undefined> {
  const failure = (reason: string) => `Confirming with a passkey failed: ${reason}`;
  const options = await api.POST('/api/account/reauth/passkey/options');
  if (!options.data) return failure(reasonOf(options));
  let credential;
  try {
    credential = await authenticate(options.data);
  } catch (err) {
    return failure(err instanceof Error ? err.message : String(err));
  }
  const res = await api.POST('/api/account/reauth/passkey', { body: { credential } });
  return res.response.ok ? undefined : failure(reasonOf(res));
}
