/**
 * The account page's "Confirm it is you" card (src/pages/confirmation.ts), shown to an account
 * without a password: its "Confirm with <name>" buttons are plain forms (to the upstream and back);
 * its passkey button (shown by account-passkeys.ts while the account has a passkey) confirms here.
 * `proofOf` is how every section sends its confirmation: the password typed, or nothing, when a
 * recent confirmation of the session stands in for it.
 */
import { ids } from '../ids.js';
import { maybeById } from './dom.js';
import { confirmWithPasskey } from './passkey-confirmation.js';
import { acting, refused, said } from './result.js';

const c = ids.confirmation;

/** The body that confirms a change: the password typed in `field`, or none (an empty field, or an account without a password). */
export function proofOf(field: HTMLInputElement | undefined): { password?: string } {
  return field === undefined || field.value === '' ? {} : { password: field.value };
}

export function startConfirmation(): void {
  const button = maybeById(c.passkey, HTMLButtonElement);
  button?.addEventListener(
    'click',
    acting(c.result, 'Confirming with a passkey', async () => {
      const failure = await confirmWithPasskey();
      if (failure) return refused(c.result, failure);
      said(c.result, 'Confirmed with a passkey');
      maybeById(c.status)?.removeAttribute('hidden');
    }),
  );
}
