// The sign-in page's passkey sign-in (src/pages/pages.ts signInPage): the "Sign in with a
// passkey" button, and the browser's autofill of passkeys in the name field (conditional
// mediation) where supported. No name is typed: the passkey says whose it is.
'use strict';
(function () {
  const { api, status } = window.idp;
  const webauthn = window.SimpleWebAuthnBrowser;
  const button = document.getElementById('passkey-signin');
  const returnTo = document.querySelector('input[name="return_to"]');
  const askOptions = () => api('POST', '/api/session/passkey/options');

  async function signIn(asking, useBrowserAutofill) {
    const options = await asking;
    if (!options.ok) throw new Error((options.data && options.data.message) || `HTTP ${options.status}`);
    // The autofill ceremony waits here until the person picks a passkey (or the button aborts it).
    const credential = await webauthn.startAuthentication({ optionsJSON: options.data, useBrowserAutofill });
    const res = await api('POST', '/api/session/passkey', { credential, return_to: returnTo ? returnTo.value : undefined });
    if (!res.ok) throw new Error((res.data && res.data.message) || `HTTP ${res.status}`);
    location.assign(res.data.redirect);
  }

  const report = (err) => status(`Signing in with a passkey failed: ${err.message}`, true);

  if (!webauthn || !webauthn.browserSupportsWebAuthn()) {
    button.hidden = true;
    return;
  }
  let clicked = false;
  // Asking for options replaces the session's challenge, so the button's request goes after the
  // autofill's (this promise settles once the autofill's options are in), and the button's
  // ceremony aborts the autofill's.
  const autofillAsked = webauthn.browserSupportsWebAuthnAutofill().then((supported) => {
    if (!supported || clicked) return undefined;
    const asking = askOptions();
    signIn(asking, true).catch((err) => {
      if (err && err.name !== 'AbortError' && err.code !== 'ERROR_CEREMONY_ABORTED') report(err);
    });
    return asking;
  });
  button.addEventListener('click', async () => {
    clicked = true;
    await autofillAsked.catch(() => undefined);
    signIn(askOptions(), false).catch(report);
  });
})();
