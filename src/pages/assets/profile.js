// The public profile page: the "Report this profile" form, through POST /api/users/{id}/reports.
'use strict';
(function () {
  const { api } = window.idp;
  const form = document.getElementById('report-form');
  const statusNode = document.getElementById('report-status');
  const submit = document.getElementById('report-submit');

  function say(text, isError) {
    statusNode.textContent = text;
    statusNode.className = isError ? 'error' : 'ok';
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = { reason: document.getElementById('report-reason').value };
    const text = document.getElementById('report-text').value.trim();
    if (text) body.text = text;
    submit.disabled = true;
    try {
      const res = await api('POST', `/api/users/${form.dataset.userId}/reports`, body);
      if (res.ok) say('Thanks. A moderator will look at this profile.');
      else say((res.data && res.data.message) || `Reporting failed: HTTP ${res.status}`, true);
    } catch {
      say('Reporting failed: the service could not be reached. Try again.', true);
    } finally {
      submit.disabled = false;
    }
  });
})();
