/**
 * The games page: register a game (then play it); the author edits or deletes each of theirs; a
 * moderator removes someone else's with a reason (src/pages/pages.ts gamesPage renders the forms).
 */
import { ids } from '../ids.js';
import { api } from './api.js';
import { all, byId } from './dom.js';
import { acting, refused, said } from './result.js';

const form = byId(ids.games.form, HTMLFormElement);
form.addEventListener(
  'submit',
  acting(ids.games.result, 'Registering the game', async () => {
    const res = await api.POST('/api/games', {
      body: { title: byId(ids.games.title, HTMLInputElement).value, url: byId(ids.games.url, HTMLInputElement).value },
    });
    if (!res.data) return refused(ids.games.result, res, 'Registering the game');
    location.assign(`/play/${res.data.id}`);
  }),
);

/** The listed game a control belongs to: its id, its list item, and its form's fields. */
function gameOf(control: HTMLElement): { id: number; item: HTMLLIElement; field: (name: string) => HTMLInputElement } {
  const item = control.closest('li[data-game-id]');
  if (!(item instanceof HTMLLIElement)) throw new Error('A game control outside its game');
  const field = (name: string) => {
    const input = item.querySelector(`input[name="${name}"]`);
    if (!(input instanceof HTMLInputElement)) throw new Error(`The game's form has no ${name}`);
    return input;
  };
  return { id: Number(item.dataset.gameId), item, field };
}

/** The game is gone from the page (deleted, removed): said below the list. */
function gone(item: HTMLLIElement, text: string): void {
  item.remove();
  said(ids.games.listResult, text);
}

for (const edit of all<HTMLFormElement>('form.game-edit-form')) {
  const { id, item, field } = gameOf(edit);
  const slot = ids.games.itemResult(id);
  const what = 'Saving the game';
  edit.addEventListener(
    'submit',
    acting(slot, what, async () => {
      const title = field('title');
      const url = field('url');
      const res = await api.PATCH('/api/games/{gameId}', { params: { path: { gameId: String(id) } }, body: { title: title.value, url: url.value } });
      if (!res.data) return refused(slot, res, what, res.response.status === 400 && (/url|address/i.test(res.error?.message ?? '') ? url : title));
      const link = item.querySelector('a');
      const address = item.querySelector('code');
      if (link) link.textContent = res.data.title;
      if (address) address.textContent = res.data.url;
      said(slot, `Saved: ${res.data.title}, hosted at ${res.data.url}`);
    }),
  );
  const remove = edit.querySelector('button.game-delete');
  remove?.addEventListener(
    'click',
    acting(slot, 'Deleting the game', async () => {
      const title = item.querySelector('a')?.textContent ?? `game ${id}`;
      if (!confirm(`Delete ${title}? Its play page goes, and it can no longer sign players in.`)) return;
      const res = await api.DELETE('/api/games/{gameId}', { params: { path: { gameId: String(id) } } });
      if (!res.response.ok) return refused(slot, res, 'Deleting the game');
      gone(item, `Deleted ${title}`);
    }),
  );
}

for (const removal of all<HTMLFormElement>('form.game-remove-form')) {
  const { id, item, field } = gameOf(removal);
  const slot = ids.games.itemResult(id);
  const what = 'Removing the game';
  removal.addEventListener(
    'submit',
    acting(slot, what, async () => {
      const reason = field('reason');
      const title = item.querySelector('a')?.textContent ?? `game ${id}`;
      if (!confirm(`Remove ${title} for its author? They are shown your reason.`)) return;
      const res = await api.POST('/api/moderation/games/{gameId}/removal', { params: { path: { gameId: String(id) } }, body: { reason: reason.value } });
      if (!res.response.ok) return refused(slot, res, what, res.response.status === 400 && reason);
      gone(item, `Removed ${title}; the moderation record says why`);
    }),
  );
}
