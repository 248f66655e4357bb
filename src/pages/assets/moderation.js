// The moderation page: the queue of reports, the search, and one user's view with the actions,
// all through the moderation API. The words for reasons, outcomes and actions come from the
// page's <template> elements (src/pages/moderation.ts).
'use strict';
(function () {
  const { api, el, formatDate } = window.idp;
  const section = document.getElementById('moderation-user');
  const myLevel = Number(section.dataset.modLevel);
  const heading = document.getElementById('moderation-user-heading');
  const view = document.getElementById('moderation-user-view');
  const history = document.getElementById('moderation-history');
  const statusNode = document.getElementById('moderation-status');
  const queueList = document.getElementById('queue-list');

  const labels = (id) => new Map([...document.getElementById(id).content.querySelectorAll('option')].map((o) => [o.value, o.textContent]));
  const REASONS = labels('reason-labels');
  const OUTCOMES = labels('outcome-labels');
  const ACTIONS = labels('action-labels');

  const messageOf = (res) => (res.data && res.data.message) || `HTTP ${res.status}`;
  const when = (ms) => el('time', { datetime: new Date(ms).toISOString(), text: formatDate(ms) });
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

  function say(node, text, isError) {
    node.textContent = text;
    node.className = isError ? 'error' : 'ok';
  }

  function userLink(u) {
    return el('a', { href: `/moderation?user=${u.id}`, onclick: (e) => { e.preventDefault(); navigate(u.id); }, text: u.name });
  }

  /** One report: reason, the reporter's text, who and when. */
  function reportSummary(r) {
    return [el('strong', { text: REASONS.get(r.reason) || r.reason }), r.text ? `: ${r.text}` : '', ` (reported by ${r.reporter.name}, `, when(r.created_at), ')'];
  }

  // The queue.
  async function loadQueue() {
    const res = await api('GET', '/api/moderation/reports');
    if (!res.ok) return queueList.replaceChildren(el('p', { class: 'error', text: `Loading the reports failed: ${messageOf(res)}` }));
    const targets = res.data.targets;
    if (!targets.length) return queueList.replaceChildren(el('p', { id: 'queue-empty', text: 'No reports are waiting.' }));
    queueList.replaceChildren(
      el('ol', { class: 'plain' }, ...targets.map((t) =>
        el('li', { class: 'queue-entry', 'data-user-id': t.user.id },
          el('h3', {}, userLink(t.user)),
          el('p', {}, `Mod level ${t.mod_level}, ${plural(t.reports.length, 'report')}, first reported `, when(t.first_reported_at)),
          el('ul', {}, ...t.reports.map((r) => el('li', {}, ...reportSummary(r))))))),
    );
  }

  // The search.
  const searchStatus = document.getElementById('moderation-search-status');
  const results = document.getElementById('moderation-results');
  document.getElementById('moderation-search-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const q = document.getElementById('moderation-search').value.trim();
    if (!q) return;
    const res = await api('GET', `/api/moderation/users?q=${encodeURIComponent(q)}`);
    if (!res.ok) {
      results.replaceChildren();
      return say(searchStatus, `Searching failed: ${messageOf(res)}`, true);
    }
    const users = res.data.users;
    say(searchStatus, users.length ? `${plural(users.length, 'user')} found.` : 'No user found.');
    results.replaceChildren(...users.map((u) =>
      el('li', {}, userLink(u), ` (id ${u.id}, mod level ${u.mod_level}${u.suspended ? ', suspended' : ''}, ${plural(u.open_reports, 'open report')})`)));
  });

  // One user.
  function row(term, ...value) {
    return [el('dt', { text: term }), el('dd', {}, ...value)];
  }

  function profileBlock(m) {
    const u = m.user;
    const picture = u.pfpTimestamp === undefined ? `/pfp/medium/${u.id}.webp` : `/pfp/medium/${u.id}-${u.pfpTimestamp}.webp`;
    const s = m.suspension;
    const suspension = s
      ? [`Since `, when(s.since), s.until ? [' until ', when(s.until)] : ' until lifted', `: ${s.reason}`].flat()
      : ['Not suspended'];
    return el('div', { class: 'profile' },
      el('img', { src: picture, alt: `Profile picture of ${u.name}`, width: 64, height: 64 }),
      el('dl', {},
        ...row('Public profile', el('a', { href: `/users/${u.id}`, text: `/users/${u.id}` })),
        ...row('Mod level', String(u.modLevel)),
        ...row('Account made', when(m.created_at)),
        ...row('Bio', u.bio ? el('span', { class: 'bio', id: 'moderation-bio', text: u.bio }) : el('small', { id: 'moderation-bio', text: 'empty' })),
        ...row('Suspension', el('span', { id: 'moderation-suspension' }, ...suspension)),
        ...(m.bio_removed ? row('Bio removed', el('span', { id: 'moderation-bio-removed' }, when(m.bio_removed.removed_at), `: ${m.bio_removed.reason}`)) : [])));
  }

  function reportsBlock(m) {
    const items = m.open_reports.map((r) => {
      const controls = m.can_act
        ? el('div', { class: 'actions' },
            el('label', {}, 'Outcome ', el('select', { id: `close-outcome-${r.id}` }, ...[...OUTCOMES].map(([value, text]) => el('option', { value, text })))),
            el('button', { type: 'button', id: `close-report-${r.id}`, class: 'secondary', onclick: () => closeReport(r.id) }, 'Close report'))
        : null;
      return el('li', { id: `report-${r.id}` }, ...reportSummary(r), controls);
    });
    return el('div', {},
      el('h3', { text: 'Open reports' }),
      items.length ? el('ul', { id: 'moderation-reports' }, ...items) : el('p', { id: 'moderation-reports', text: 'No open reports.' }));
  }

  function button(id, text, onclick, cls) {
    return el('button', { type: 'button', id, class: cls, onclick }, text);
  }

  function actionsBlock(m) {
    if (!m.can_act) {
      return el('p', { id: 'moderation-cannot-act' }, `Your mod level (${myLevel}) is not above this user's (${m.user.modLevel}): you may look, not act.`);
    }
    const levels = [];
    for (let level = 0; level < myLevel; level++) levels.push(el('option', { value: level, selected: level === m.user.modLevel, text: String(level) }));
    return el('div', { id: 'moderation-actions' },
      el('h3', { text: 'Actions' }),
      el('div', { class: 'stack' },
        el('label', {}, 'Reason ', el('small', { text: 'the user is shown it; 1-500 characters' }), el('input', { id: 'action-reason', maxlength: 500, autocomplete: 'off' })),
        el('div', { class: 'actions' },
          button('hide-bio', 'Hide bio', () => act('POST', 'bio-removal', 'Hiding the bio', true)),
          button('remove-picture', 'Remove picture', () => act('POST', 'picture-removal', 'Removing the picture', true))),
        el('label', {}, 'Suspend until ', el('small', { text: 'optional; left empty, until lifted' }), el('input', { id: 'suspend-until', type: 'datetime-local' })),
        el('div', { class: 'actions' },
          button('suspend', m.suspension ? 'Change the suspension' : 'Suspend', suspend, 'danger'),
          m.suspension ? button('lift-suspension', 'Lift the suspension', () => act('DELETE', 'suspension', 'Lifting the suspension', false), 'secondary') : null),
        myLevel >= 2
          ? el('div', { class: 'actions' },
              el('label', {}, 'Mod level ', el('select', { id: 'mod-level' }, ...levels)),
              button('set-mod-level', 'Set mod level', setModLevel, 'secondary'))
          : null));
  }

  function historyItem(a) {
    let what = ACTIONS.get(a.action) || a.action;
    if (a.action === 'set_mod_level' && a.mod_level !== undefined) what += ` to ${a.mod_level}`;
    if (a.action === 'close_report') what += ` #${a.report_id}: ${OUTCOMES.get(a.outcome) || a.outcome}`;
    return el('li', {},
      el('strong', { text: what }),
      ...(a.action === 'suspend' ? (a.until ? [' until ', when(a.until)] : [' until lifted']) : []),
      a.reason ? `: ${a.reason}` : '',
      ` (by ${a.moderator ? a.moderator.name : 'operator'}, `, when(a.created_at), ')');
  }

  let current;

  function show(m) {
    current = m;
    heading.textContent = `${m.user.name} (id ${m.user.id})`;
    view.replaceChildren(profileBlock(m), reportsBlock(m), actionsBlock(m));
    history.replaceChildren(...(m.actions.length ? m.actions.map(historyItem) : [el('li', { text: 'No moderator actions yet.' })]));
  }

  async function open(id, focus) {
    section.hidden = false;
    say(statusNode, '');
    const res = await api('GET', `/api/moderation/users/${id}`);
    if (!res.ok) {
      current = undefined;
      heading.textContent = `User ${id}`;
      view.replaceChildren();
      history.replaceChildren();
      say(statusNode, `Opening the user failed: ${messageOf(res)}`, true);
    } else {
      show(res.data);
    }
    if (focus) heading.focus();
  }

  function navigate(id) {
    window.history.pushState({ user: id }, '', `/moderation?user=${id}`);
    open(id, true);
  }

  window.addEventListener('popstate', () => {
    const id = new URLSearchParams(window.location.search).get('user');
    if (id) open(id, false);
    else section.hidden = true;
  });

  /** Runs one action on the open user; the answer is the user after it, shown at once. */
  async function act(method, path, done, needsReason, extra) {
    if (!current) return;
    const reasonInput = document.getElementById('action-reason');
    const reason = reasonInput.value.trim();
    if (needsReason && !reason) {
      say(statusNode, `${done}: write the reason first; the user is shown it.`, true);
      return reasonInput.focus();
    }
    let body;
    if (method !== 'DELETE') body = { ...(reason ? { reason } : {}), ...extra };
    const res = await api(method, `/api/moderation/users/${current.user.id}/${path}`, body);
    if (!res.ok) return say(statusNode, `${done} failed: ${messageOf(res)}`, true);
    show(res.data);
    say(statusNode, `${done}: done.`);
    loadQueue();
  }

  function suspend() {
    const until = document.getElementById('suspend-until').value;
    if (!until) return act('POST', 'suspension', 'Suspending', true);
    const ms = new Date(until).getTime();
    if (Number.isNaN(ms)) return say(statusNode, 'Suspending: the end is not a valid date and time.', true);
    return act('POST', 'suspension', 'Suspending', true, { until: ms });
  }

  function setModLevel() {
    act('PUT', 'mod-level', 'Setting the mod level', false, { modLevel: Number(document.getElementById('mod-level').value) });
  }

  async function closeReport(reportId) {
    const outcome = document.getElementById(`close-outcome-${reportId}`).value;
    const res = await api('POST', `/api/moderation/reports/${reportId}/close`, { outcome });
    if (!res.ok) return say(statusNode, `Closing report #${reportId} failed: ${messageOf(res)}`, true);
    const userId = current.user.id;
    await open(userId, false);
    say(statusNode, `Report #${reportId} closed: ${OUTCOMES.get(outcome)}.`);
    loadQueue();
  }

  loadQueue();
  if (section.dataset.openUser) open(section.dataset.openUser, false);
})();
