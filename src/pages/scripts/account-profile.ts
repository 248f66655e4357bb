/** The account page's profile part: bio, flair and profile picture, through /api/account. */
import type { components } from '../../../generated/api.js';
import { ids } from '../ids.js';
import { api, type Answer } from './api.js';
import { all, byId, el } from './dom.js';
import { formatDate, deviceName } from './format.js';
import { acting, loading, refused, said } from './result.js';

type PublicUser = components['schemas']['AccountUser']['user'];
type BioRemoval = components['schemas']['BioRemoval'];

const p = ids.profile;
let hadPicture = false;

// The picture, and Remove picture offered only when there is one to remove.
function showPicture(user: PublicUser): void {
  byId(p.picture, HTMLImageElement).src = user.pfpTimestamp ? `/pfp/medium/${user.id}-${user.pfpTimestamp}.webp` : `/pfp/medium/${user.id}.webp`;
  hadPicture = Boolean(user.pfpTimestamp);
  byId(p.removePicture).hidden = !hadPicture;
}

// The profile card. `fields` also sets the bio and flair fields (on load and after saving one of
// them), which a picture change leaves as typed.
function show(user: PublicUser, email?: string, fields = true): void {
  showPicture(user);
  // "none" is no flair: no badge at all.
  const flair = byId(p.flair);
  flair.hidden = user.equippedFlair === 'none';
  flair.textContent = flair.hidden ? '' : user.equippedFlair;
  byId(p.playMinutes).textContent = String(user.playMinutes);
  if (email !== undefined) byId(p.email).textContent = email;
  if (!fields) return;
  byId(p.bio, HTMLTextAreaElement).value = user.bio;
  byId(p.flairSelect, HTMLSelectElement).replaceChildren(...user.flairs.map((f) => el('option', { value: f, text: f, selected: f === user.equippedFlair })));
}

// A moderator emptied the bio: said beside it (why and when) until the user writes a new one.
function showBioRemoved(removal: BioRemoval | undefined): void {
  const notice = byId(p.bioRemoved);
  notice.hidden = !removal;
  notice.textContent = removal ? `A moderator removed your bio on ${formatDate(removal.removed_at)}: ${removal.reason}` : '';
}

async function load(): Promise<void> {
  const res = await api.GET('/api/account');
  if (!res.data) return refused(p.result, res, 'Loading the account');
  show(res.data.user, res.data.email);
  showBioRemoved(res.data.bio_removed);
}

/** A refusal the field is to blame for: a bad value, too large, or not a picture. */
const fieldsFault = (answer: Answer) => [400, 413, 415].includes(answer.response.status);

// One change; its result goes to `slot`, right after the form or button that asked. A refusal
// marks `field` (what the person should fix) and keeps what they typed.
async function changed(res: Answer & { data?: { user: PublicUser } }, what: string, slot: string, field: HTMLElement): Promise<boolean> {
  if (!res.data) {
    refused(slot, res, what, fieldsFault(res) && field);
    return false;
  }
  show(res.data.user, undefined, slot !== p.pictureResult);
  said(slot, `${what}: done`);
  return true;
}

export function startProfile(): void {
  const bio = byId(p.bio, HTMLTextAreaElement);
  byId(p.bioForm, HTMLFormElement).addEventListener(
    'submit',
    acting(p.bioResult, 'Saving the bio', async () => {
      const saved = await changed(await api.PATCH('/api/account', { body: { bio: bio.value } }), 'Saving the bio', p.bioResult, bio);
      // A new bio ends the notice of a removed one: the account says whether it still stands.
      if (!saved || byId(p.bioRemoved).hidden) return;
      const res = await api.GET('/api/account');
      if (res.data) showBioRemoved(res.data.bio_removed);
    }),
  );
  const flair = byId(p.flairSelect, HTMLSelectElement);
  byId(p.flairForm, HTMLFormElement).addEventListener(
    'submit',
    acting(p.flairResult, 'Equipping the flair', async () => {
      await changed(await api.PATCH('/api/account', { body: { equippedFlair: flair.value } }), 'Equipping the flair', p.flairResult, flair);
    }),
  );
  const input = byId(p.pictureFile, HTMLInputElement);
  byId(p.pictureForm, HTMLFormElement).addEventListener(
    'submit',
    acting(p.pictureResult, 'Uploading the picture', async () => {
      const file = input.files?.[0];
      if (!file) return refused(p.pictureResult, 'Choose a picture first', undefined, input);
      const form = new FormData();
      form.append('file', file);
      // The contract types the binary part as a string; the browser sends the FormData as it is.
      const res = await api.PUT('/api/account/picture', { body: { file: file.name }, bodySerializer: () => form });
      // The chosen file stays chosen when the picture is refused; once it is the picture, it goes.
      if (await changed(res, 'Uploading the picture', p.pictureResult, input)) input.value = '';
    }),
  );
  byId(p.removePicture, HTMLButtonElement).addEventListener(
    'click',
    acting(p.pictureResult, 'Removing the picture', async () => {
      // Asked first: a picture removed elsewhere meanwhile (another tab, a moderator) is said as it
      // is, not answered "done" (the API's removal answers the same either way).
      const now = await api.GET('/api/account');
      if (now.data) showPicture(now.data.user);
      if (!hadPicture) {
        input.focus();
        return refused(p.pictureResult, 'You have no picture to remove');
      }
      const res = await api.DELETE('/api/account/picture');
      if (!res.data) return refused(p.pictureResult, res, 'Removing the picture');
      showPicture(res.data.user);
      said(p.pictureResult, 'Picture removed: your profile shows the default picture again');
      input.focus();
    }),
  );
  // Served with a refusal in place (a change of address, posted as a form): scrolled into view.
  document.querySelector('.result [role=alert]:not(:empty)')?.scrollIntoView({ block: 'nearest' });
  // The sign-in history (rendered by the server, in UTC): its dates in the page's one format, its
  // browsers by name, the raw user agent kept in the title.
  const history = document.getElementById(p.signIns);
  if (history) {
    for (const time of all<HTMLTimeElement>('time[datetime]', history)) {
      time.title = time.textContent ?? '';
      time.textContent = formatDate(Date.parse(time.dateTime));
    }
    for (const cell of all('td[data-user-agent]', history)) {
      cell.title = cell.dataset.userAgent ?? '';
      cell.textContent = deviceName(cell.dataset.userAgent);
    }
  }
  loading(p.result, 'Loading the account', load);
}
