/** The public profile page: the "Report this profile" form, through POST /api/users/{id}/reports. */
import type { components } from '../../../generated/api.js';
import { ids } from '../ids.js';
import { api } from './api.js';
import { all, byId } from './dom.js';
import { acting, refused, said } from './result.js';

type ReportRequest = components['schemas']['ReportRequest'];
type ReportReason = ReportRequest['reason'];

const r = ids.report;
const form = byId(r.form, HTMLFormElement);
const reasonSelect = byId(r.reason, HTMLSelectElement);
const textInput = byId(r.text, HTMLTextAreaElement);
const submit = byId(r.submit, HTMLButtonElement);
const userId = form.dataset.userId;
if (!userId) throw new Error(`#${r.form} has no data-user-id`);

// The reasons offered are the contract's (the server writes the options from its type); the
// empty first option is the prompt, not a reason.
const reasons = new Set(all<HTMLOptionElement>('option', reasonSelect).map((o) => o.value).filter(Boolean));
const isReason = (value: string): value is ReportReason => reasons.has(value);

const what = 'Reporting';
form.addEventListener(
  'submit',
  acting(r.result, what, async () => {
    const reason = reasonSelect.value;
    if (!isReason(reason)) return refused(r.result, 'choose a reason', what, reasonSelect);
    const body: ReportRequest = { reason };
    const text = textInput.value.trim();
    if (text) body.text = text;
    submit.disabled = true;
    try {
      const res = await api.POST('/api/users/{id}/reports', { params: { path: { id: userId } }, body });
      if (res.data) said(r.result, 'Thanks. A moderator will look at this profile.');
      else refused(r.result, res, what);
    } finally {
      submit.disabled = false;
    }
  }),
);
