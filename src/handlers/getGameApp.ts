import { gameApp, gameScopes } from '../games/games.js';
import { covers } from '../oauth/consent.js';
import type { Handler, JsonBody } from '../http/handler.js';
import { currentUser } from '../http/signed-in.js';

export const getGameApp: Handler<'getGameApp'> = async (input, ctx, deps) => {
  const { gameId, clientId } = input.path;
  const { app, owner } = await gameApp(deps.store, Number(gameId), clientId);
  const user = await currentUser(ctx, deps);
  // The scopes the game asks for (`scope`, space-separated; the seed's `userinfo` by default).
  const scopes = gameScopes((input.query.scope ?? 'userinfo').split(' ').filter((s) => s !== ''));
  const granted = user !== undefined && covers(await deps.store.grants.getGrant(user.id, app.clientId), scopes);
  const body: JsonBody<'getGameApp', 200> = { client_id: app.clientId, name: app.name, owner: { id: owner.id, name: owner.name }, granted };
  // Whether this player granted the app is personal.
  if (user) ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
