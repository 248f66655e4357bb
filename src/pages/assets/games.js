// The games page: register a game.
'use strict';
(function () {
  const { api, failed } = window.idp;
  document.getElementById('game-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const res = await api('POST', '/api/games', {
      title: document.getElementById('game-title').value,
      url: document.getElementById('game-url').value,
    });
    if (!res.ok) return failed(res, 'Registering the game');
    location.assign(`/play/${res.data.id}`);
  });
})();
