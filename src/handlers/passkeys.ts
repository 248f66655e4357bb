/** The passkey operations: the account's passkeys, and signing in with one (src/accounts/passkeys.ts). */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import {
  addPasskey as add,
  authenticationOptions,
  listPasskeys as list,
  reauthOptions,
  registrationOptions,
  removePasskey as remove,
  renamePasskey as rename,
  verifyPasskeyReauth,
  verifyPasskeySignIn,
} from '../accounts/passkeys.js';
import { noticeSecurityChange } from '../accounts/notices.js';
import { Unauthenticated } from '../domain/errors.js';
import { notePasskeyConfirmation, passkeyConfirmedAt, putPasskeyChallenge, takePasskeyChallenge } from '../sessions/session.js';
import type { Handler, JsonBody } from './types.js';
import { beginSignedInSession, safeReturnTo, signedInUser } from './web.js';

export const passkeyRegistrationOptions: Handler<'passkeyRegistrationOptions'> = async (input, ctx, deps) => {
  const proof = { password: input.body?.password, passkeyConfirmedAt: passkeyConfirmedAt(ctx) };
  const options = await registrationOptions(deps, signedInUser(ctx), proof, ctx.ip);
  putPasskeyChallenge(ctx, 'register', options.challenge, deps.now());
  ctx.set('Cache-Control', 'no-store');
  ctx.body = options;
};

export const addPasskey: Handler<'addPasskey'> = async (input, ctx, deps) => {
  const challenge = takePasskeyChallenge(ctx, 'register', deps.now());
  // The contract checks the answer's shape; the WebAuthn library checks the rest.
  const response = input.body.credential as unknown as RegistrationResponseJSON;
  const userId = signedInUser(ctx).id;
  const body: JsonBody<'addPasskey', 201> = await add(deps, userId, { response, name: input.body.name, challenge }, ctx.ip);
  noticeSecurityChange(deps, userId, 'passkey_added');
  ctx.status = 201;
  ctx.body = body;
};

export const listPasskeys: Handler<'listPasskeys'> = async (_input, ctx, deps) => {
  const body: JsonBody<'listPasskeys', 200> = { passkeys: await list(deps.store, signedInUser(ctx).id) };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};

export const renamePasskey: Handler<'renamePasskey'> = async (input, ctx, deps) => {
  const body: JsonBody<'renamePasskey', 200> = await rename(deps.store, signedInUser(ctx).id, Number(input.path.passkeyId), input.body.name);
  ctx.body = body;
};

export const removePasskey: Handler<'removePasskey'> = async (input, ctx, deps) => {
  const proof = { password: input.body?.password, passkeyConfirmedAt: passkeyConfirmedAt(ctx) };
  const user = signedInUser(ctx);
  await remove(deps, user, Number(input.path.passkeyId), proof, ctx.ip);
  noticeSecurityChange(deps, user.id, 'passkey_removed');
  ctx.status = 204;
};

export const passkeyReauthOptions: Handler<'passkeyReauthOptions'> = async (_input, ctx, deps) => {
  const options = await reauthOptions(deps, signedInUser(ctx).id);
  putPasskeyChallenge(ctx, 'reauth', options.challenge, deps.now());
  ctx.set('Cache-Control', 'no-store');
  ctx.body = options;
};

export const reauthWithPasskey: Handler<'reauthWithPasskey'> = async (input, ctx, deps) => {
  const challenge = takePasskeyChallenge(ctx, 'reauth', deps.now());
  const response = input.body.credential as unknown as AuthenticationResponseJSON;
  await verifyPasskeyReauth(deps, signedInUser(ctx).id, { response, challenge }, ctx.ip);
  notePasskeyConfirmation(ctx, deps.now());
  ctx.status = 204;
};

export const passkeySignInOptions: Handler<'passkeySignInOptions'> = async (_input, ctx, deps) => {
  const options = await authenticationOptions(deps);
  putPasskeyChallenge(ctx, 'sign_in', options.challenge, deps.now());
  ctx.set('Cache-Control', 'no-store');
  ctx.body = options;
};

export const signInWithPasskey: Handler<'signInWithPasskey'> = async (input, ctx, deps) => {
  const challenge = takePasskeyChallenge(ctx, 'sign_in', deps.now());
  const response = input.body.credential as unknown as AuthenticationResponseJSON;
  const returnTo = safeReturnTo(input.body.return_to);
  const { userId, amr } = await verifyPasskeySignIn(deps, { response, challenge }, ctx.ip);
  const user = await deps.store.getUser(userId);
  // A passkey goes with its user: only a deletion racing this sign-in gets here.
  if (!user) throw new Unauthenticated('This passkey is not registered here');
  await beginSignedInSession(ctx, deps, user, 'sign_in', returnTo, amr);
  const body: JsonBody<'signInWithPasskey', 200> = { redirect: returnTo ?? '/account' };
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
};
