/**
 * Taking a way into the account off its list (a passkey, a linked account), as both account
 * sections do it. The item's button asks confirm(), then sends the DELETE without a body: a passkey
 * confirmation of the session may stand in for the password. A 400 (no such confirmation) opens
 * the item's form, which sends the password or confirms with a passkey first. The account's last
 * way in (409) and an item gone meanwhile (404) are said in the section's result slot; a wrong
 * password beside the field.
 */
import type { Answer } from './api.js';
import { reasonOf } from './api.js';
import { el } from './dom.js';
import { confirmWithPasskey } from './passkey-confirmation.js';
import { acting, refused, said } from './result.js';

interface Removal {
  /** The section's result slot. */
  slot: string;
  /** The item's id, in its error's element id. */
  id: number;
  /** What is done, as the person reads it ("Removing the passkey", "Unlinking GitHub"). */
  what: string;
  /** The button's word ("Remove", "Unlink"), and its accessible name when the word alone is not enough. */
  verb: string;
  label?: string;
  /** What confirm() asks. */
  question: string;
  /** What the slot says once it went. */
  done: string;
  /**
   * Class names (the browser suites find the parts by them): `form`, the prefix of the form's
   * parts (`<form>-confirm`, `<form>-password`, `<form>-error`); `button`, the item's button and
   * the prefix of the form's (`<button>-confirmed`, `<button>-with-passkey`).
   */
  names: { form: string; button: string };
  /**
   * Whether the account has a password to ask for: without one, a refusal for want of a
   * confirmation is said in the section (the "Confirm it is you" card confirms), no form opens.
   */
  password: boolean;
  /** The DELETE: no body first, then `{password}`, or `{}` after a passkey confirmation. */
  send(body: { password?: string } | undefined): Promise<Answer>;
  /** Loads the section's list again. */
  reload(): Promise<void>;
}

/** The item's button and its confirmation form, to put in the item. */
export function removalControls(r: Removal): [HTMLButtonElement, HTMLFormElement] {
  const { form: f, button: b } = r.names;
  const errorId = `${f}-error-${r.id}`;
  const password = el('input', { type: 'password', class: `${f}-password`, autocomplete: 'current-password', required: true, maxlength: '256', 'aria-describedby': errorId });
  const error = el('p', { class: `error ${f}-error`, id: errorId, role: 'alert' });

  async function remove(body: { password?: string } | undefined): Promise<void> {
    const res = await r.send(body);
    password.value = '';
    const status = res.response.status;
    if (status === 400 && body === undefined && !r.password) return refused(r.slot, res, r.what);
    if (status === 400 && body === undefined) {
      form.hidden = false;
      password.focus();
      return;
    }
    if (status === 409 || status === 404) {
      refused(r.slot, res, r.what);
      if (status === 404) await r.reload();
      return;
    }
    if (!res.response.ok) {
      password.setAttribute('aria-invalid', 'true');
      error.textContent = `${r.what} failed: ${reasonOf(res)}`;
      return;
    }
    await r.reload();
    said(r.slot, r.done);
  }

  async function removeWithPasskey(): Promise<void> {
    const failure = await confirmWithPasskey();
    if (failure) {
      error.textContent = failure;
      return;
    }
    await remove({});
  }

  const form = el(
    'form',
    { class: `stack ${f}-confirm`, hidden: true, onsubmit: acting(r.slot, r.what, () => remove({ password: password.value })) },
    el('p', { text: `Type your password, or confirm with a passkey, to ${r.verb.toLowerCase()} it.` }),
    el('label', {}, 'Password ', password),
    error,
    el('button', { type: 'submit', class: `danger ${b}-confirmed`, text: `${r.verb} with password` }),
    el('button', { type: 'button', class: `secondary ${b}-with-passkey`, text: 'Confirm with a passkey', onclick: acting(r.slot, r.what, removeWithPasskey) }),
  );
  const button = el('button', {
    type: 'button',
    class: `secondary ${b}`,
    text: r.verb,
    'aria-label': r.label,
    onclick: acting(r.slot, r.what, async () => {
      if (confirm(r.question)) await remove(undefined);
    }),
  });
  return [button, form];
}
