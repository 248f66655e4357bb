// The account page's "Authenticator app" section (src/pages/authenticator.ts): set up (QR code
// and otpauth:// address, switched on by the first code), recovery codes, switching off. Setting
// up, new recovery codes and switching off ask for the password, or a passkey confirmation of the
// session (5 minutes).
'use strict';
(function () {
  const { api, el } = window.idp;
  const byId = (id) => document.getElementById(id);
  const message = (res, what) => `${what} failed: ${(res.data && res.data.message) || `HTTP ${res.status}`}`;
  const webauthn = window.SimpleWebAuthnBrowser;
  const passwords = ['totp-start-password', 'recovery-password', 'totp-off-password'].map(byId);
  // An empty field sends no password: a passkey confirmation of the session may stand in for it.
  const proof = (password) => (password.value === '' ? {} : { password: password.value });

  async function confirmWithPasskey() {
    const say = byId('totp-passkey-status');
    const failure = await window.idp.confirmWithPasskey();
    if (failure) return (say.textContent = failure);
    say.textContent = 'Confirmed with a passkey: for 5 minutes, leave the password empty.';
    for (const p of passwords) p.required = false;
  }

  if (webauthn && webauthn.browserSupportsWebAuthn()) {
    byId('totp-passkey-confirm').hidden = false;
    byId('totp-passkey-confirm').addEventListener('click', confirmWithPasskey);
  }

  function showRecoveryCodes(codes) {
    byId('recovery-codes').replaceChildren(...codes.map((c) => el('li', {}, el('code', { text: c }))));
    byId('recovery-codes-box').hidden = false;
    byId('recovery-codes-left').textContent = String(codes.length);
  }

  byId('totp-start-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const password = byId('totp-start-password');
    const res = await api('POST', '/api/account/totp', proof(password));
    password.value = '';
    if (!res.ok) {
      password.setAttribute('aria-invalid', 'true');
      return (byId('totp-start-error').textContent = message(res, 'Starting the setup'));
    }
    password.removeAttribute('aria-invalid');
    byId('totp-start-error').textContent = '';
    byId('totp-qr').src = res.data.qr_image;
    byId('totp-uri').textContent = res.data.uri;
    byId('totp-error').textContent = '';
    byId('totp-start-form').hidden = true;
    byId('totp-setup').hidden = false;
    byId('totp-code').focus();
  });

  byId('totp-confirm-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const code = byId('totp-code');
    const res = await api('POST', '/api/account/totp/confirm', { code: code.value });
    if (!res.ok) {
      code.setAttribute('aria-invalid', 'true');
      byId('totp-error').textContent = message(res, 'Switching on');
      return;
    }
    code.value = '';
    code.removeAttribute('aria-invalid');
    byId('totp-error').textContent = '';
    byId('totp-setup').hidden = true;
    byId('totp-off').hidden = true;
    byId('totp-on').hidden = false;
    const ended = res.data.ended_sessions;
    byId('totp-ended-sessions').textContent =
      ended === 0 ? 'No other session was signed in.' : `Signed out everywhere else: ${ended} other ${ended === 1 ? 'session' : 'sessions'} must sign in again with a code.`;
    byId('totp-ended-sessions').hidden = false;
    showRecoveryCodes(res.data.recovery_codes);
  });

  byId('recovery-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const password = byId('recovery-password');
    const res = await api('POST', '/api/account/recovery-codes', proof(password));
    password.value = '';
    if (!res.ok) return (byId('recovery-error').textContent = message(res, 'Making new recovery codes'));
    byId('recovery-error').textContent = '';
    showRecoveryCodes(res.data.recovery_codes);
  });

  byId('totp-off-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const password = byId('totp-off-password');
    const res = await api('DELETE', '/api/account/totp', proof(password));
    password.value = '';
    if (!res.ok) return (byId('totp-off-error').textContent = message(res, 'Switching off'));
    byId('totp-off-error').textContent = '';
    byId('recovery-codes-box').hidden = true;
    byId('recovery-codes').replaceChildren();
    byId('totp-on').hidden = true;
    byId('totp-setup').hidden = true;
    byId('totp-start-form').hidden = false;
    byId('totp-ended-sessions').hidden = true;
    byId('totp-off').hidden = false;
  });
})();
