// The account page: bio, flair, profile picture, through /api/account.
'use strict';
(function () {
  const { api, status, failed, el } = window.idp;

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
    if (!res.ok) return failed(res, 'Loading the account');
    show(res.data.user, res.data.email);
    showBioRemoved(res.data.bio_removed);
  }

  async function change(method, path, body, done) {
    const res = await api(method, path, body);
    if (!res.ok) {
      failed(res, done);
      return false;
    }
    show(res.data.user);
    status(`${done}: done`);
    return true;
  }

  document.getElementById('bio-form').addEventListener('submit', (e) => {
    e.preventDefault();
    change('PATCH', '/api/account', { bio: document.getElementById('bio').value }, 'Saving the bio').then(async (saved) => {
      // A new bio ends the notice of a removed one: the account says whether it still stands.
      const res = saved && !document.getElementById('bio-removed').hidden ? await api('GET', '/api/account') : undefined;
      if (res && res.ok) showBioRemoved(res.data.bio_removed);
    });
  });
  document.getElementById('flair-form').addEventListener('submit', (e) => {
    e.preventDefault();
    change('PATCH', '/api/account', { equippedFlair: document.getElementById('flair').value }, 'Equipping the flair');
  });
  document.getElementById('picture-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const file = document.getElementById('picture-file').files[0];
    if (!file) return;
    const form = new FormData();
    form.append('file', file);
    change('PUT', '/api/account/picture', form, 'Uploading the picture');
  });
  document.getElementById('remove-picture').addEventListener('click', () => {
    change('DELETE', '/api/account/picture', undefined, 'Removing the picture');
  });
  load();
})();
