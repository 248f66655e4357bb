/**
 * The moderation page: the queue of reports, the search, and one user's view with the actions,
 * all through the moderation API. The words for reasons, outcomes and actions come from the
 * page's <template> elements (src/pages/moderation.ts).
 */
import type { components } from '../../../generated/api.js';
import { ids } from '../ids.js';
import { api, reasonOf, UNREACHABLE, type Answer } from './api.js';
import { all, byId, el } from './dom.js';
import { formatDate } from './format.js';
import { acting, cleared, loading, refused, said } from './result.js';

type ModerationUser = components['schemas']['ModerationUser'];
type ModerationAction = components['schemas']['ModerationAction'];
type Report = components['schemas']['Report'];
type ReportOutcome = components['schemas']['ReportOutcome'];
type UserRef = components['schemas']['UserRef'];
type ModLevel = components['schemas']['PublicUser']['modLevel'];
/** An action's answer: the user after it. */
type UserAnswer = Answer & { data?: ModerationUser };

const m = ids.moderation;
const slot = m.result;
const section = byId(m.user);
const myLevel = Number(section.dataset.modLevel);
const heading = byId(m.heading);
const view = byId(m.view);
const historyList = byId(m.history);
const queueList = byId(m.queue);

const labels = (id: string) => new Map(all<HTMLOptionElement>('option', byId(id, HTMLTemplateElement).content).map((o) => [o.value, o.text]));
const REASONS = labels(m.reasonLabels);
const OUTCOMES = labels(m.outcomeLabels);
const ACTIONS = labels(m.actionLabels);

// The outcomes the page offers are the contract's (the server writes the template from its type).
const isOutcome = (value: string): value is ReportOutcome => OUTCOMES.has(value);
const isModLevel = (value: number): value is ModLevel => value === 0 || value === 1 || value === 2 || value === 3;

const when = (ms: number) => el('time', { datetime: new Date(ms).toISOString(), text: formatDate(ms) });
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const failure = (err: unknown) => (err instanceof TypeError ? UNREACHABLE : String(err));

function userLink(u: UserRef): HTMLAnchorElement {
  return el('a', {
    href: `/moderation?user=${u.id}`,
    text: u.name,
    onclick: acting(slot, 'Opening the user', async (e: Event) => {
      e.preventDefault();
      await navigate(String(u.id));
    }),
  });
}

/** One report: reason, the reporter's text, who and when. */
function reportSummary(r: Report): (string | Node)[] {
  return [el('strong', { text: REASONS.get(r.reason) ?? r.reason }), r.text ? `: ${r.text}` : '', ` (reported by ${r.reporter.name}, `, when(r.created_at), ')'];
}

// The queue. A failure to load it is said in its place (where "Loading…" was).
async function loadQueue(): Promise<void> {
  const res = await api.GET('/api/moderation/reports');
  if (!res.data) {
    queueList.replaceChildren(el('p', { class: 'error', text: `Loading the reports failed: ${reasonOf(res)}` }));
    return;
  }
  const { targets } = res.data;
  if (!targets.length) {
    queueList.replaceChildren(el('p', { id: 'queue-empty', text: 'No reports are waiting.' }));
    return;
  }
  queueList.replaceChildren(
    el(
      'ol',
      { class: 'plain' },
      ...targets.map((t) =>
        el(
          'li',
          { class: 'queue-entry', 'data-user-id': t.user.id },
          el('h3', {}, userLink(t.user)),
          el('p', {}, `Mod level ${t.mod_level}, ${plural(t.reports.length, 'report')}, first reported `, when(t.first_reported_at)),
          el('ul', {}, ...t.reports.map((r) => el('li', {}, ...reportSummary(r)))),
        ),
      ),
    ),
  );
}

function refreshQueue(): void {
  loadQueue().catch((err: unknown) => queueList.replaceChildren(el('p', { class: 'error', text: `Loading the reports failed: ${failure(err)}` })));
}

// The search.
const results = byId(m.results);
const searchInput = byId(m.search, HTMLInputElement);
byId(m.searchForm, HTMLFormElement).addEventListener(
  'submit',
  acting(m.searchResult, 'Searching', async () => {
    const q = searchInput.value.trim();
    if (!q) return;
    const res = await api.GET('/api/moderation/users', { params: { query: { q } } });
    if (!res.data) {
      results.replaceChildren();
      return refused(m.searchResult, res, 'Searching');
    }
    const { users } = res.data;
    said(m.searchResult, users.length ? `${plural(users.length, 'user')} found.` : 'No user found.');
    results.replaceChildren(
      ...users.map((u) => el('li', {}, userLink(u), ` (id ${u.id}, mod level ${u.mod_level}${u.suspended ? ', suspended' : ''}, ${plural(u.open_reports, 'open report')})`)),
    );
  }),
);

// One user.
function row(term: string, ...value: (string | Node)[]): HTMLElement[] {
  return [el('dt', { text: term }), el('dd', {}, ...value)];
}

function profileBlock(mu: ModerationUser): HTMLElement {
  const u = mu.user;
  const picture = u.pfpTimestamp === undefined ? `/pfp/medium/${u.id}.webp` : `/pfp/medium/${u.id}-${u.pfpTimestamp}.webp`;
  const s = mu.suspension;
  const suspension = s ? ['Since ', when(s.since), ...(s.until !== undefined ? [' until ', when(s.until)] : [' until lifted']), `: ${s.reason}`] : ['Not suspended'];
  return el(
    'div',
    { class: 'profile' },
    el('img', { src: picture, alt: `Profile picture of ${u.name}`, width: 64, height: 64 }),
    el(
      'dl',
      {},
      ...row('Public profile', el('a', { href: `/users/${u.id}`, text: `/users/${u.id}` })),
      ...row('Mod level', String(u.modLevel)),
      ...row('Account made', when(mu.created_at)),
      ...row('Bio', u.bio ? el('span', { class: 'bio', id: 'moderation-bio', text: u.bio }) : el('small', { id: 'moderation-bio', text: 'empty' })),
      ...row('Suspension', el('span', { id: 'moderation-suspension' }, ...suspension)),
      ...(mu.bio_removed ? row('Bio removed', el('span', { id: 'moderation-bio-removed' }, when(mu.bio_removed.removed_at), `: ${mu.bio_removed.reason}`)) : []),
    ),
  );
}

function reportsBlock(mu: ModerationUser): HTMLElement {
  const items = mu.open_reports.map((r) => {
    let controls: HTMLElement | null = null;
    if (mu.can_act) {
      const outcome = el('select', { id: `close-outcome-${r.id}` }, ...[...OUTCOMES].map(([value, text]) => el('option', { value, text })));
      controls = el(
        'div',
        { class: 'actions' },
        el('label', {}, 'Outcome ', outcome),
        button(`close-report-${r.id}`, 'Close report', acting(slot, `Closing report #${r.id}`, () => closeReport(r.id, outcome.value)), 'secondary'),
      );
    }
    return el('li', { id: `report-${r.id}` }, ...reportSummary(r), controls);
  });
  return el(
    'div',
    {},
    el('h3', { text: 'Open reports' }),
    items.length ? el('ul', { id: 'moderation-reports' }, ...items) : el('p', { id: 'moderation-reports', text: 'No open reports.' }),
  );
}

function button(id: string, text: string, onclick: EventListener, cls?: string): HTMLButtonElement {
  return el('button', { type: 'button', id, class: cls, onclick }, text);
}

function actionsBlock(mu: ModerationUser): HTMLElement {
  const u = mu.user;
  if (!mu.can_act) {
    return el('p', { id: 'moderation-cannot-act' }, `Your mod level (${myLevel}) is not above this user's (${u.modLevel}): you may look, not act.`);
  }
  const reasonInput = el('input', { id: 'action-reason', maxlength: 500, autocomplete: 'off' });
  const untilInput = el('input', { id: 'suspend-until', type: 'datetime-local' });
  const levels: HTMLOptionElement[] = [];
  for (let level = 0; level < myLevel; level++) levels.push(el('option', { value: level, selected: level === u.modLevel, text: String(level) }));
  const levelSelect = el('select', { id: 'mod-level' }, ...levels);
  const id = String(u.id);

  /** Runs one action on the user; the answer is the user after it, shown at once. */
  async function act(done: string, call: (reason: string) => Promise<UserAnswer>, options: { needsReason: boolean; question?: string }): Promise<void> {
    const reason = reasonInput.value.trim();
    if (options.needsReason && !reason) return refused(slot, `${done}: write the reason first; the user is shown it.`, undefined, reasonInput);
    if (options.question !== undefined && !confirm(options.question)) return;
    const res = await call(reason);
    if (!res.data) return refused(slot, res, done);
    show(res.data);
    said(slot, `${done}: done.`);
    refreshQueue();
  }

  const hideBio = acting(slot, 'Hiding the bio', () =>
    act('Hiding the bio', (reason) => api.POST('/api/moderation/users/{id}/bio-removal', { params: { path: { id } }, body: { reason } }), { needsReason: true }),
  );
  const removePicture = acting(slot, 'Removing the picture', () =>
    act('Removing the picture', (reason) => api.POST('/api/moderation/users/{id}/picture-removal', { params: { path: { id } }, body: { reason } }), { needsReason: true }),
  );

  const suspend = acting(slot, 'Suspending', async () => {
    let until: number | undefined;
    if (untilInput.value) {
      until = new Date(untilInput.value).getTime();
      if (Number.isNaN(until)) return refused(slot, 'Suspending: the end is not a valid date and time.', undefined, untilInput);
    }
    const end = until === undefined ? 'until lifted' : `until ${formatDate(until)}`;
    const question = mu.suspension
      ? `Change the suspension of ${u.name} to last ${end}?`
      : `Suspend ${u.name} ${end}? They are signed out everywhere and cannot sign in while it lasts.`;
    await act('Suspending', (reason) => api.POST('/api/moderation/users/{id}/suspension', { params: { path: { id } }, body: { reason, ...(until !== undefined ? { until } : {}) } }), {
      needsReason: true,
      question,
    });
  });

  const lift = acting(slot, 'Lifting the suspension', () =>
    act('Lifting the suspension', () => api.DELETE('/api/moderation/users/{id}/suspension', { params: { path: { id } } }), { needsReason: false }),
  );

  const setModLevel = acting(slot, 'Setting the mod level', async () => {
    const modLevel = Number(levelSelect.value);
    if (!isModLevel(modLevel)) return refused(slot, `Setting the mod level: ${levelSelect.value} is not a mod level.`, undefined, levelSelect);
    await act('Setting the mod level', (reason) => api.PUT('/api/moderation/users/{id}/mod-level', { params: { path: { id } }, body: { modLevel, ...(reason ? { reason } : {}) } }), {
      needsReason: false,
    });
  });

  // Only what there is to act on: Hide bio with a bio, Remove picture with a picture.
  const contentActions = [
    u.bio ? button('hide-bio', 'Hide bio', hideBio) : null,
    u.pfpTimestamp !== undefined ? button('remove-picture', 'Remove picture', removePicture) : null,
  ];
  return el(
    'div',
    { id: 'moderation-actions' },
    el('h3', { text: 'Actions' }),
    el(
      'div',
      { class: 'stack' },
      el('label', {}, 'Reason ', el('small', { text: 'the user is shown it; 1-500 characters' }), reasonInput),
      contentActions.some(Boolean) ? el('div', { class: 'actions' }, ...contentActions) : null,
      el('label', {}, 'Suspend until ', el('small', { text: 'optional; left empty, until lifted' }), untilInput),
      el(
        'div',
        { class: 'actions' },
        button('suspend', mu.suspension ? 'Change the suspension' : 'Suspend', suspend, 'danger'),
        mu.suspension ? button('lift-suspension', 'Lift the suspension', lift, 'secondary') : null,
      ),
      myLevel >= 2 ? el('div', { class: 'actions' }, el('label', {}, 'Mod level ', levelSelect), button('set-mod-level', 'Set mod level', setModLevel, 'secondary')) : null,
    ),
  );
}

function historyItem(a: ModerationAction): HTMLElement {
  let what = ACTIONS.get(a.action) ?? a.action;
  if (a.action === 'set_mod_level' && a.mod_level !== undefined) what += ` to ${a.mod_level}`;
  if (a.action === 'close_report') what += ` #${a.report_id ?? ''}: ${a.outcome === undefined ? '' : (OUTCOMES.get(a.outcome) ?? a.outcome)}`;
  if (a.action === 'remove_game' && a.game) what += ` "${a.game.title}" (id ${a.game.id})`;
  return el(
    'li',
    {},
    el('strong', { text: what }),
    ...(a.action === 'suspend' ? (a.until !== undefined ? [' until ', when(a.until)] : [' until lifted']) : []),
    a.reason ? `: ${a.reason}` : '',
    ` (by ${a.moderator ? a.moderator.name : 'operator'}, `,
    when(a.created_at),
    ')',
  );
}

let current: ModerationUser | undefined;

function show(mu: ModerationUser): void {
  current = mu;
  heading.textContent = `${mu.user.name} (id ${mu.user.id})`;
  view.replaceChildren(profileBlock(mu), reportsBlock(mu), actionsBlock(mu));
  historyList.replaceChildren(...(mu.actions.length ? mu.actions.map(historyItem) : [el('li', { text: 'No moderator actions yet.' })]));
}

async function open(id: string, focus: boolean): Promise<void> {
  section.hidden = false;
  cleared(slot);
  const res = await api.GET('/api/moderation/users/{id}', { params: { path: { id } } });
  if (!res.data) {
    current = undefined;
    heading.textContent = `User ${id}`;
    view.replaceChildren();
    historyList.replaceChildren();
    refused(slot, res, 'Opening the user');
  } else {
    show(res.data);
  }
  if (focus) heading.focus();
}

function navigate(id: string): Promise<void> {
  window.history.pushState({ user: id }, '', `/moderation?user=${id}`);
  return open(id, true);
}

window.addEventListener(
  'popstate',
  acting(slot, 'Opening the user', async () => {
    const id = new URLSearchParams(window.location.search).get('user');
    if (id) await open(id, false);
    else section.hidden = true;
  }),
);

async function closeReport(reportId: number, outcome: string): Promise<void> {
  if (!current) return;
  const what = `Closing report #${reportId}`;
  if (!isOutcome(outcome)) return refused(slot, `${outcome} is not an outcome`, what);
  const res = await api.POST('/api/moderation/reports/{reportId}/close', { params: { path: { reportId: String(reportId) } }, body: { outcome } });
  if (!res.data) return refused(slot, res, what);
  await open(String(current.user.id), false);
  said(slot, `Report #${reportId} closed: ${OUTCOMES.get(outcome) ?? outcome}.`);
  refreshQueue();
}

refreshQueue();
const openUser = section.dataset.openUser;
if (openUser) loading(slot, 'Opening the user', () => open(openUser, false));
