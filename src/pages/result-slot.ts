/**
 * Where a form's or a control's result is said: right after it, so it shows where the person
 * looks. Two regions that are always in the page (live regions announce only changes): one
 * `role=status` for results, one `role=alert` for errors (the id `<id>-error`, which a wrong
 * field names in its aria-describedby). assets/common.js `idp.said`/`idp.refused` fill them in; a page served
 * with a refusal (`error`) has it in place already.
 */
import { html, type SafeHtml } from '../domain/html.js';

export function resultSlot(id: string, error?: string): SafeHtml {
  return html`<div class="result" id="${id}"><p role="status" class="ok" id="${id}-status"></p><p role="alert" class="error" id="${id}-error">${error ?? ''}</p></div>`;
}
