/**
 * The one way a page says what came of an action: in the action's result slot
 * (src/pages/result-slot.ts), right after the form or control that asked. A slot has two regions
 * that are always in the page (live regions announce only changes): `role=status` for results,
 * `role=alert` for errors (id `<slot>-error`, which a wrong field names in its aria-describedby).
 * Each new result replaces the last one and ends the error marks it set on fields.
 */
import { reasonOf, UNREACHABLE, type Answer } from './api.js';
import { all, byId } from './dom.js';

function regions(slot: string): { box: HTMLElement; status: HTMLElement; error: HTMLElement } {
  return { box: byId(slot), status: byId(`${slot}-status`), error: byId(`${slot}-error`) };
}

function clear(slot: string): { box: HTMLElement; status: HTMLElement; error: HTMLElement } {
  const found = regions(slot);
  for (const field of all(`[aria-describedby~="${found.error.id}"]`)) {
    const rest = (field.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id !== found.error.id);
    if (rest.length) field.setAttribute('aria-describedby', rest.join(' '));
    else field.removeAttribute('aria-describedby');
    field.removeAttribute('aria-invalid');
  }
  found.error.textContent = '';
  found.status.textContent = '';
  return found;
}

/** A result: said in the slot's status region, scrolled into view (focus stays where it is). */
export function said(slot: string, text: string): void {
  const { box, status } = clear(slot);
  status.textContent = text;
  box.scrollIntoView({ block: 'nearest' });
}

/**
 * An error: `why` an API answer (its message) or a text, prefixed with "<what> failed: " when
 * `what` is given. `field`, when one is wrong, is marked invalid, described by the message and
 * focused, and the message scrolled into view beside it.
 */
export function refused(slot: string, why: string | Answer, what?: string, field?: HTMLElement | false): void {
  const { box, error } = clear(slot);
  const reason = typeof why === 'string' ? why : reasonOf(why);
  error.textContent = what ? `${what} failed: ${reason}` : reason;
  if (field) {
    field.setAttribute('aria-invalid', 'true');
    const described = field.getAttribute('aria-describedby');
    field.setAttribute('aria-describedby', described ? `${described} ${error.id}` : error.id);
    field.focus({ preventScroll: true });
    field.scrollIntoView({ block: 'nearest' });
  }
  box.scrollIntoView({ block: 'nearest' });
}

/** A result slot made in the page (for what a script renders), the same as the server's resultSlot(id). */
export function resultSlotElement(id: string): HTMLDivElement {
  const box = document.createElement('div');
  box.className = 'result';
  box.id = id;
  for (const [role, kind] of [
    ['status', 'ok'],
    ['alert', 'error'],
  ] as const) {
    const region = document.createElement('p');
    region.setAttribute('role', role);
    region.className = kind;
    region.id = `${id}-${role === 'status' ? 'status' : 'error'}`;
    box.append(region);
  }
  return box;
}

/** Empties the slot (and ends the marks its last error set). */
export function cleared(slot: string): void {
  clear(slot);
}

/**
 * A listener that runs `act` and, when it throws (the service unreachable: fetch rejects), says
 * so in the slot instead of failing silently. A form's submit is not sent by the browser: the
 * script sends it.
 */
export function acting<E extends Event>(slot: string, what: string, act: (event: E) => Promise<unknown>): (event: E) => void {
  return (event) => {
    if (event.type === 'submit') event.preventDefault();
    act(event).catch((err: unknown) => refused(slot, err instanceof TypeError ? UNREACHABLE : String(err), what));
  };
}

/** Runs what a page does when it opens (load a list), saying in the slot when the service cannot be reached. */
export function loading(slot: string, what: string, load: () => Promise<unknown>): void {
  load().catch((err: unknown) => refused(slot, err instanceof TypeError ? UNREACHABLE : String(err), what));
}
