// The account page: bio, flair, profile picture, through /api/account.
'use strict';
(function () {
  const { api, said, refused, el, formatDate, deviceName } = window.idp;
  const byId = (id) => document.getElementById(id);
  let hadPicture = false;

  // The picture, and Remove picture offered only when there is one to remove.
  function showPicture(user) {
    byId('picture').src = user.pfpTimestamp ? `/pfp/medium/${user.id}-${user.pfpTimestamp}.webp` : `/pfp/medium/${user.id}.webp`;
    hadPicture = Boolean(user.pfpTimestamp);
    byId('remove-picture').hidden = !hadPicture;
  }

  // The profile card. `fields` also sets the bio and flair fields (on load and after saving one of
  // them), which a picture change leaves as typed.
  function show(user, email, fields = true) {
    showPicture(user);
    // "none" is no flair: no badge at all.
    const flair = byId('profile-flair');
    flair.hidden = user.equippedFlair === 'none';
    flair.textContent = flair.hidden ? '' : user.equippedFlair;
    byId('play-minutes').textContent = String(user.playMinutes);
    if (email !== undefined) byId('profile-email').textContent = email;
    if (!fields) return;
    byId('bio').value = user.bio;
    byId('flair').replaceChildren(...user.flairs.map((f) => el('option', { value: f, text: f, selected: f === user.equippedFlair })));
  }

  // A moderator emptied the bio: said beside it (why and when) until the user writes a new one.
  function showBioRemoved(removal) {
    const notice = document.getElementById('bio-removed');
    notice.hidden = !removal;
    notice.textContent = removal
      ? `A moderator removed your bio on ${formatDate(removal.removed_at)}: ${removal.reason}`
      : '';
  }

  async function load() {
    const res = await api('GET', '/api/account');
    if (!res.ok) return refused('account-result', res, 'Loading the account');
    show(res.data.user, res.data.email);
    showBioRemoved(res.data.bio_removed);
  }

  // One change through the API; its result goes to `slot`, right after the form or button that
  // asked. A refusal marks `field` (what the person should fix) and keeps what they typed.
  async function change(method, path, body, what, slot, field) {
    const res = await api(method, path, body);
    if (!res.ok) {
      refused(slot, res, what, res.status === 400 || res.status === 413 || res.status === 415 ? field : undefined);
      return false;
    }
    show(res.data.user, undefined, slot !== 'picture-result');
    said(slot, `${what}: done`);
    return true;
  }

  byId('bio-form').addEventListener('submit', (e) => {
    e.preventDefault();
    change('PATCH', '/api/account', { bio: byId('bio').value }, 'Saving the bio', 'bio-result', byId('bio')).then(async (saved) => {
      // A new bio ends the notice of a removed one: the account says whether it still stands.
      const res = saved && !byId('bio-removed').hidden ? await api('GET', '/api/account') : undefined;
      if (res && res.ok) showBioRemoved(res.data.bio_removed);
    });
  });
  byId('flair-form').addEventListener('submit', (e) => {
    e.preventDefault();
    change('PATCH', '/api/account', { equippedFlair: byId('flair').value }, 'Equipping the flair', 'flair-result', byId('flair'));
  });
  byId('picture-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const input = byId('picture-file');
    const file = input.files[0];
    if (!file) return refused('picture-result', 'Choose a picture first', undefined, input);
    const form = new FormData();
    form.append('file', file);
    // The chosen file stays chosen when the picture is refused; once it is the picture, it goes.
    if (await change('PUT', '/api/account/picture', form, 'Uploading the picture', 'picture-result', input)) input.value = '';
  });
  byId('remove-picture').addEventListener('click', async () => {
    // Asked first: a picture removed elsewhere meanwhile (another tab, a moderator) is said as it
    // is, not answered "done" (the API's removal answers the same either way).
    const now = await api('GET', '/api/account');
    if (now.ok) showPicture(now.data.user);
    if (!hadPicture) {
      byId('picture-file').focus();
      return refused('picture-result', 'You have no picture to remove');
    }
    const res = await api('DELETE', '/api/account/picture');
    if (!res.ok) return refused('picture-result', res, 'Removing the picture');
    showPicture(res.data.user);
    said('picture-result', 'Picture removed: your profile shows the default picture again');
    byId('picture-file').focus();
  });
  // Served with a refusal in place (a change of address, posted as a form): scrolled into view.
  const refusal = document.querySelector('.result [role=alert]:not(:empty)');
  if (refusal) refusal.scrollIntoView({ block: 'nearest' });
  // The sign-in history (rendered by the server, in UTC): its dates in the page's one format, its
  // browsers by name, the raw user agent kept in the title.
  for (const time of document.querySelectorAll('#sign-ins time[datetime]')) {
    time.title = time.textContent;
    time.textContent = formatDate(Date.parse(time.getAttribute('datetime')));
  }
  for (const cell of document.querySelectorAll('#sign-ins td[data-user-agent]')) {
    cell.title = cell.dataset.userAgent;
    cell.textContent = deviceName(cell.dataset.userAgent);
  }
  load();
})();
