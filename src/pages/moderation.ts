/**
 * The public profile page (with its "Report this profile" form) and the moderation page. The
 * moderation page is a frame filled by scripts/moderation.ts through the moderation API; the
 * words for the contract's enums are here once, and reach the script as <template> options.
 */
import type { components } from '../../generated/api.js';
import type { PublicUser } from '../accounts/users.js';
import { html, type SafeHtml } from '../domain/html.js';
import { layout, type PageUser } from './html.js';
import { ids } from './ids.js';
import { resultSlot } from './result-slot.js';

type ReportReason = components['schemas']['ReportReason'];
type ReportOutcome = components['schemas']['ReportOutcome'];
type ActionKind = components['schemas']['ModerationActionKind'];

const REPORT_REASONS: Record<ReportReason, string> = {
  spam: 'Spam',
  harassment: 'Harassment: abuse aimed at people',
  hate: 'Hate speech',
  sexual: 'Sexual content',
  impersonation: 'Pretends to be someone else',
  other: 'Something else (say what below)',
};

const REPORT_OUTCOMES: Record<ReportOutcome, string> = {
  no_action: 'No action needed',
  bio_hidden: 'Bio hidden',
  picture_removed: 'Picture removed',
  suspended: 'Suspended',
};

const ACTION_KINDS: Record<ActionKind, string> = {
  suspend: 'Suspended the account',
  lift_suspension: 'Lifted the suspension',
  hide_bio: 'Hid the bio',
  remove_picture: 'Removed the picture',
  set_mod_level: 'Set the mod level',
  close_report: 'Closed report',
  remove_game: 'Removed the game',
};

interface Common {
  user: PageUser | undefined;
  csrfToken: string;
}

function options(labels: Record<string, string>): SafeHtml[] {
  return Object.entries(labels).map(([value, label]) => html`<option value="${value}">${label}</option>`);
}

function pictureAddress(u: Pick<PublicUser, 'id' | 'pfpTimestamp'>): string {
  return u.pfpTimestamp === undefined ? `/pfp/large/${u.id}.webp` : `/pfp/large/${u.id}-${u.pfpTimestamp}.webp`;
}

function reportSection(o: Common, profile: PublicUser): SafeHtml {
  if (!o.user) {
    const back = encodeURIComponent(`/users/${profile.id}`);
    return html`<p id="report-signin"><a href="/signin?return_to=${back}">Sign in</a> to report this profile to the moderators.</p>`;
  }
  if (o.user.id === profile.id) return html`<p>This is your public profile. <a href="/account">Change it on your account page</a>.</p>`;
  return html`<section id="report" class="card"><h2>Report this profile</h2>
<p>If this profile breaks the rules, tell the moderators. ${profile.name} is not told who reported them.</p>
<form id="${ids.report.form}" class="stack" data-user-id="${profile.id}">
<label>Reason <select id="${ids.report.reason}" name="reason" required><option value="">Choose a reason</option>${options(REPORT_REASONS)}</select></label>
<label>What is wrong <small>optional, at most 500 characters</small> <textarea id="${ids.report.text}" name="text" maxlength="500" rows="3"></textarea></label>
<button type="submit" id="${ids.report.submit}">Report this profile</button>
${resultSlot(ids.report.result)}
</form></section>`;
}

export function profilePage(o: Common & { profile: PublicUser }): string {
  const p = o.profile;
  return layout({
    ...o,
    title: p.name,
    script: o.user && o.user.id !== p.id ? 'profile' : undefined,
    body: html`<section id="public-profile" class="profile">
<img id="profile-picture" src="${pictureAddress(p)}" alt="Profile picture of ${p.name}" width="128" height="128">
<div>
<h1 id="profile-name">${p.name}</h1>
${p.equippedFlair === 'none' ? '' : html`<p><span id="${ids.publicProfile.flair}" class="flair">${p.equippedFlair}</span></p>`}
<p>Played <span id="${ids.publicProfile.playMinutes}">${p.playMinutes}</span> ${p.playMinutes === 1 ? 'minute' : 'minutes'}</p>
</div>
</section>
<h2>Bio</h2>
${p.bio ? html`<p id="profile-bio" class="bio">${p.bio}</p>` : html`<p id="profile-bio"><small>No bio yet.</small></p>`}
${reportSection(o, p)}`,
  });
}

export function moderationPage(o: Common & { user: PageUser; modLevel: number; openUser?: number }): string {
  return layout({
    ...o,
    title: 'Moderation',
    script: 'moderation',
    body: html`<h1>Moderation</h1>
<section id="report-queue" class="card" aria-labelledby="queue-heading"><h2 id="queue-heading">Reports waiting</h2>
<p><small>Oldest first. Open a user to act on their reports.</small></p>
<div id="${ids.moderation.queue}"><p>Loading…</p></div></section>
<section id="moderation-find" class="card"><h2>Find a user</h2>
<form id="${ids.moderation.searchForm}" class="stack" role="search">
<label>Name or id <input id="${ids.moderation.search}" name="q" type="search" required maxlength="28" autocomplete="off"></label>
<button type="submit" id="moderation-search-submit">Search</button>
</form>
${resultSlot(ids.moderation.searchResult)}
<ul id="${ids.moderation.results}" class="plain"></ul></section>
<section id="${ids.moderation.user}" class="card" data-mod-level="${o.modLevel}" data-open-user="${o.openUser ?? ''}" aria-labelledby="${ids.moderation.heading}" hidden>
<h2 id="${ids.moderation.heading}" tabindex="-1">User</h2>
<div id="${ids.moderation.view}"></div>
${resultSlot(ids.moderation.result)}
<h3>History</h3>
<ul id="${ids.moderation.history}" class="plain"></ul>
</section>
<template id="${ids.moderation.reasonLabels}">${options(REPORT_REASONS)}</template>
<template id="${ids.moderation.outcomeLabels}">${options(REPORT_OUTCOMES)}</template>
<template id="${ids.moderation.actionLabels}">${options(ACTION_KINDS)}</template>`,
  });
}
