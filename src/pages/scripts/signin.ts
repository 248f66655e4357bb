/**
 * The sign-in page's passkey sign-in (src/pages/pages.ts signInPage): the "Sign in with a passkey"
 * button, and the browser's autofill of passkeys in the name field (conditional mediation) where
 * supported. No name is typed: the passkey says whose it is.
 */
import { browserSupportsWebAuthn, browserSupportsWebAuthnAutofill } from '@simplewebauthn/browser';
import { ids } from '../ids.js';
import { api, reasonOf } from './api.js';
import { byId } from './dom.js';
import { refused } from './result.js';
import { authenticate } from './webauthn.js';

const button = byId(ids.signIn.passkeyButton, HTMLButtonElement);
const returnTo = document.querySelector<HTMLInputElement>('input[name="return_to"]')?.value;
const askOptions = () => api.POST('/api/session/passkey/options');

async function signIn(asking: ReturnType<typeof askOptions>, useBrowserAutofill: boolean): Promise<void> {
  const options = await asking;
  if (!options.data) throw new Error(reasonOf(options));
  // The autofill ceremony waits here until the person picks a passkey (or the button aborts it).
  const credential = await authenticate(options.data, useBrowserAutofill);
  const res = await api.POST('/api/session/passkey', { body: { credential, return_to: returnTo } });
  if (!res.data) throw new Error(reasonOf(res));
  location.assign(res.data.redirect);
}

const report = (err: unknown) => refused(ids.signIn.result, err instanceof Error ? err.message : String(err), 'Signing in with a passkey');

/** An autofill ceremony ended by the button's (or by leaving the page) is no failure to show. */
const aborted = (err: unknown) => err instanceof Error && (err.name === 'AbortError' || ('code' in err && err.code === 'ERROR_CEREMONY_ABORTED'));

if (!browserSupportsWebAuthn()) {
  button.hidden = true;
} else {
  let clicked = false;
  // Asking for options replaces the session's challenge, so the button's request goes after the
  // autofill's (this promise settles once the autofill's options are in), and the button's
  // ceremony aborts the autofill's.
  const autofillAsked = browserSupportsWebAuthnAutofill().then((supported) => {
    if (!supported || clicked) return undefined;
    const asking = askOptions();
    signIn(asking, true).catch((err: unknown) => {
      if (!aborted(err)) report(err);
    });
    return asking;
  });
  button.addEventListener('click', () => {
    clicked = true;
    void autofillAsked
      .catch(() => undefined)
      .then(() => signIn(askOptions(), false))
      .catch(report);
  });
}
