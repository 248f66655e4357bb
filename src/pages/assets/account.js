// The account page: bio, flair, profile picture, through /api/account.
'use strict';
(function () {
  const { api, said, refused, el } = window.idp;
  const byId = (id) => document.getElementById(id);

  function show(user, email) {
    const picture = document.getElementById('picture');
    picture.src = user.pfpTimestamp
      ? `/pfp/medium/${user.id}-${user.pfpTimestamp}.webp`
      : `/pfp/medium/${user.id}.webp`;
    document.getElementById('profile-flair').textContent = user.equippedFlair === 'none' ? '' : user.equippedFlair;
    document.getElementById('play-minutes').textContent = String(user.playMinutes);
    if (email !== undefined) document.getElementById('profile-email').textContent = email;
    document.getElementById('bio').value = user.bio;
    const select = document.getElementById('flair');
    select.replaceChildren(...user.flairs.map((f) => el('option', { value: f, text: f, selected: f === user.equippedFlair })));
  }

  // A moderator emptied the bio: said beside it (why and when) until the user writes a new one.
  function showBioRemoved(removal) {
    const notice = document.getElementById('bio-removed');
    notice.hidden = !removal;
    notice.textContent = removal
      ? `A moderator removed your bio on ${new Date(removal.removed_at).toLocaleDateString()}: ${removal.reason}`
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
    show(res.data.user);
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
  byId('remove-picture').addEventListener('click', () => {
    change('DELETE', '/api/account/picture', undefined, 'Removing the picture', 'picture-result');
  });
  // Served with a refusal in place (a change of address, posted as a form): scrolled into view.
  const refusal = document.querySelector('.result [role=alert]:not(:empty)');
  if (refusal) refusal.scrollIntoView({ block: 'nearest' });
  load();
})();
