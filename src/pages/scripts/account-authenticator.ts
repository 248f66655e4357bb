/**
 * The account page's "Authenticator app" section (src/pages/authenticator.ts): set up (QR code,
 * setup key and otpauth:// address, switched on by the first code), recovery codes (copy,
 * download), switching off. Setting up, new recovery codes and switching off ask for the password,
 * or a passkey confirmation of the session (5 minutes).
 */
import { browserSupportsWebAuthn } from '@simplewebauthn/browser';
import { ids } from '../ids.js';
import { api } from './api.js';
import { copying } from './copy.js';
import { proofOf } from './account-confirmation.js';
import { byId, el, maybeById } from './dom.js';
import { confirmWithPasskey } from './passkey-confirmation.js';
import { acting, cleared, refused, said } from './result.js';

const a = ids.authenticator;
// None for an account without a password (it confirms in the "Confirm it is you" card). An empty
// field sends no password: a confirmation of the session may stand in for it.
const passwords = [a.startPassword, a.recoveryPassword, a.offPassword].map((id) => maybeById(id, HTMLInputElement));
const proof = proofOf;

/** The otpauth address's secret, in groups of four as phone apps show a key typed by hand. */
function setupKey(uri: string): string {
  const secret = new URL(uri).searchParams.get('secret') ?? '';
  return secret.match(/.{1,4}/g)?.join(' ') ?? '';
}

function showRecoveryCodes(codes: string[]): void {
  byId(a.recoveryCodes).replaceChildren(...codes.map((code) => el('li', {}, el('code', { text: code }))));
  byId(a.recoveryCodesBox).hidden = false;
  byId(a.recoveryCodesLeft).textContent = String(codes.length);
  // The download is a text file made here: the codes never travel again.
  const file = new Blob([`Recovery codes for your account at ${location.host}. Each works once.\n\n${codes.join('\n')}\n`], { type: 'text/plain' });
  const link = byId(a.downloadRecoveryCodes, HTMLAnchorElement);
  if (link.href.startsWith('blob:')) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(file);
}

async function start(): Promise<void> {
  const password = maybeById(a.startPassword, HTMLInputElement);
  const res = await api.POST('/api/account/totp', { body: proof(password) });
  if (password) password.value = '';
  if (!res.data) return refused(a.startResult, res, 'Starting the setup', password ?? false);
  cleared(a.startResult);
  byId(a.qr, HTMLImageElement).src = res.data.qr_image;
  byId(a.setupKey).textContent = setupKey(res.data.uri);
  byId(a.uri).textContent = res.data.uri;
  cleared(a.confirmResult);
  byId(a.startForm).hidden = true;
  byId(a.setup).hidden = false;
  byId(a.code).focus();
}

async function switchOn(): Promise<void> {
  const code = byId(a.code, HTMLInputElement);
  const res = await api.POST('/api/account/totp/confirm', { body: { code: code.value } });
  if (!res.data) return refused(a.confirmResult, res, 'Switching on', code);
  code.value = '';
  cleared(a.confirmResult);
  byId(a.setup).hidden = true;
  byId(a.off).hidden = true;
  byId(a.on).hidden = false;
  const ended = res.data.ended_sessions;
  const endedNote = byId(a.endedSessions);
  endedNote.textContent =
    ended === 0 ? 'No other session was signed in.' : `Signed out everywhere else: ${ended} other ${ended === 1 ? 'session' : 'sessions'} must sign in again with a code.`;
  endedNote.hidden = false;
  showRecoveryCodes(res.data.recovery_codes);
}

async function newRecoveryCodes(): Promise<void> {
  const password = maybeById(a.recoveryPassword, HTMLInputElement);
  const res = await api.POST('/api/account/recovery-codes', { body: proof(password) });
  if (password) password.value = '';
  if (!res.data) return refused(a.recoveryResult, res, 'Making new recovery codes', password ?? false);
  said(a.recoveryResult, 'New recovery codes made: the old ones no longer work');
  showRecoveryCodes(res.data.recovery_codes);
}

async function switchOff(): Promise<void> {
  const password = maybeById(a.offPassword, HTMLInputElement);
  const res = await api.DELETE('/api/account/totp', { body: proof(password) });
  if (password) password.value = '';
  if (!res.response.ok) return refused(a.offResult, res, 'Switching off', password ?? false);
  cleared(a.offResult);
  byId(a.recoveryCodesBox).hidden = true;
  byId(a.recoveryCodes).replaceChildren();
  byId(a.on).hidden = true;
  byId(a.setup).hidden = true;
  byId(a.startForm).hidden = false;
  byId(a.endedSessions).hidden = true;
  byId(a.off).hidden = false;
}

async function confirmInstead(): Promise<void> {
  const failure = await confirmWithPasskey();
  if (failure) return refused(a.passkeyResult, failure);
  said(a.passkeyResult, 'Confirmed with a passkey: for 5 minutes, leave the password empty.');
  for (const p of passwords) if (p) p.required = false;
}

export function startAuthenticator(): void {
  const confirmButton = maybeById(a.passkeyConfirm, HTMLButtonElement);
  if (confirmButton && browserSupportsWebAuthn()) {
    confirmButton.hidden = false;
    confirmButton.addEventListener('click', acting(a.passkeyResult, 'Confirming with a passkey', confirmInstead));
  }
  byId(a.startForm, HTMLFormElement).addEventListener('submit', acting(a.startResult, 'Starting the setup', start));
  byId(a.confirmForm, HTMLFormElement).addEventListener('submit', acting(a.confirmResult, 'Switching on', switchOn));
  byId(a.recoveryForm, HTMLFormElement).addEventListener('submit', acting(a.recoveryResult, 'Making new recovery codes', newRecoveryCodes));
  byId(a.offForm, HTMLFormElement).addEventListener('submit', acting(a.offResult, 'Switching off', switchOff));
  copying(byId(a.copyRecoveryCodes, HTMLButtonElement), a.recoveryResult, 'the recovery codes', () => byId(a.recoveryCodes));
}
