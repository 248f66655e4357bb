import type { Context as OpContext } from 'openapi-backend';
import type { operations } from '../../generated/api.js';
import { exchangeToken } from './exchangeToken.js';
import { revokeToken } from './revokeToken.js';
import { introspectToken } from './introspectToken.js';
import { getAuthorizationServerMetadata } from './getAuthorizationServerMetadata.js';
import { getOpenIdConfiguration } from './getOpenIdConfiguration.js';
import { getJwks } from './getJwks.js';
import { getOidcUserInfo, postOidcUserInfo } from './getOidcUserInfo.js';
import { confirmLogout, getLogout, postLogout } from './logout.js';
import { getContractJson } from './getContractJson.js';
import { getContractYaml } from './getContractYaml.js';
import { getDocs } from './getDocs.js';
import { getDocsAsset } from './getDocsAsset.js';
import { getHealth } from './getHealth.js';
import { getProfilePicture } from './getProfilePicture.js';
import { getUserInfo } from './getUserInfo.js';
import { bearerAuth, getWhois } from './getWhois.js';
import { getHome } from './getHome.js';
import { getAsset } from './getAsset.js';
import { getSignIn } from './getSignIn.js';
import { postSignIn } from './postSignIn.js';
import { getSignInSecondStep, postSignInSecondStep } from './signInSecondStep.js';
import { confirmTotpSetup, disableTotp, getSecondFactor, replaceRecoveryCodes, startTotpSetup } from './secondFactor.js';
import { getSignUp } from './getSignUp.js';
import { postSignUp } from './postSignUp.js';
import { postSignOut } from './postSignOut.js';
import { getAccountPage } from './getAccountPage.js';
import { getAppsPage } from './getAppsPage.js';
import { getGamesPage } from './getGamesPage.js';
import { getPlayPage } from './getPlayPage.js';
import { getProfilePage } from './getProfilePage.js';
import { getModerationPage } from './getModerationPage.js';
import {
  closeReport,
  findModerationUsers,
  getModerationUser,
  hideBio,
  liftSuspension,
  listModerationActions,
  listReports,
  removePicture,
  reportUser,
  setModLevel,
  suspendUser,
} from './moderation.js';
import { getGameSdk, getGameSdkTypes } from './getGameSdk.js';
import { getAuthorize } from './getAuthorize.js';
import { postAuthorize } from './postAuthorize.js';
import { getSession } from './getSession.js';
import { getAccount } from './getAccount.js';
import { updateAccount } from './updateAccount.js';
import { setAccountPicture } from './setAccountPicture.js';
import { removeAccountPicture } from './removeAccountPicture.js';
import { postHeartbeat } from './postHeartbeat.js';
import { listApps } from './listApps.js';
import { registerApp } from './registerApp.js';
import { deleteApp } from './deleteApp.js';
import { rotateAppSecret } from './rotateAppSecret.js';
import { listGames } from './listGames.js';
import { registerGame } from './registerGame.js';
import { getGameApp } from './getGameApp.js';
import { issueGameCode } from './issueGameCode.js';
import { listGrants } from './listGrants.js';
import { revokeGrant } from './revokeGrant.js';
import { changePassword } from './changePassword.js';
import { listSessions } from './listSessions.js';
import { endSession } from './endSession.js';
import { signOutEverywhere } from './signOutEverywhere.js';
import { deleteAccount } from './deleteAccount.js';
import { exportAccount } from './exportAccount.js';
import { getVerifyEmail } from './getVerifyEmail.js';
import { postResendVerification } from './postResendVerification.js';
import { postChangeEmail } from './postChangeEmail.js';
import { getForgotPassword } from './getForgotPassword.js';
import { postForgotPassword } from './postForgotPassword.js';
import { getResetPassword } from './getResetPassword.js';
import { postResetPassword } from './postResetPassword.js';
import {
  addPasskey,
  listPasskeys,
  passkeyReauthOptions,
  passkeyRegistrationOptions,
  passkeySignInOptions,
  reauthWithPasskey,
  removePasskey,
  renamePasskey,
  signInWithPasskey,
} from './passkeys.js';
import { csrf, session } from '../http/security-schemes.js';
import type { Handler, SecurityHandler } from './types.js';

export type { AppDeps } from './types.js';

/** One handler per operationId; the compiler refuses a map that misses or invents an operation. */
export const operationHandlers: { [Op in keyof operations]: Handler<Op> } = {
  exchangeToken,
  revokeToken,
  introspectToken,
  getAuthorizationServerMetadata,
  getOpenIdConfiguration,
  getJwks,
  getOidcUserInfo,
  postOidcUserInfo,
  getLogout,
  postLogout,
  confirmLogout,
  getWhois,
  getUserInfo,
  getProfilePicture,
  getHealth,
  getContractYaml,
  getContractJson,
  getDocs,
  getDocsAsset,
  getHome,
  getAsset,
  getSignIn,
  postSignIn,
  getSignInSecondStep,
  postSignInSecondStep,
  getSignUp,
  postSignUp,
  postSignOut,
  getAccountPage,
  getAppsPage,
  getGamesPage,
  getPlayPage,
  getProfilePage,
  getModerationPage,
  getGameSdk,
  getGameSdkTypes,
  getAuthorize,
  postAuthorize,
  getSession,
  getAccount,
  updateAccount,
  setAccountPicture,
  removeAccountPicture,
  postHeartbeat,
  listApps,
  registerApp,
  deleteApp,
  rotateAppSecret,
  listGames,
  registerGame,
  getGameApp,
  issueGameCode,
  listGrants,
  revokeGrant,
  changePassword,
  getSecondFactor,
  startTotpSetup,
  confirmTotpSetup,
  disableTotp,
  replaceRecoveryCodes,
  listSessions,
  endSession,
  signOutEverywhere,
  deleteAccount,
  exportAccount,
  getVerifyEmail,
  postResendVerification,
  postChangeEmail,
  getForgotPassword,
  postForgotPassword,
  getResetPassword,
  postResetPassword,
  passkeyRegistrationOptions,
  addPasskey,
  listPasskeys,
  renamePasskey,
  removePasskey,
  passkeyReauthOptions,
  reauthWithPasskey,
  passkeySignInOptions,
  signInWithPasskey,
  reportUser,
  listReports,
  closeReport,
  findModerationUsers,
  getModerationUser,
  suspendUser,
  liftSuspension,
  hideBio,
  removePicture,
  setModLevel,
  listModerationActions,
};

/**
 * The request's parts, as src/http/dispatch.ts (or openapi-backend) left them on its context once
 * validated against the operation's contract entry. They become the handler's HandlerInput where
 * src/http/operations.ts binds each handler to its operationId: that binding is what types them.
 */
export function handlerInput(c: OpContext): Record<'path' | 'query' | 'headers' | 'body', unknown> {
  return { path: c.request.params, query: c.request.query, headers: c.request.headers, body: c.request.requestBody };
}

/**
 * One handler per security scheme that needs one. clientBasic has none: the token, revocation and
 * introspection endpoints authenticate the client themselves (src/oauth/clients.ts), since the
 * credentials may come in the body instead.
 */
export const securityHandlers = { bearerAuth, session, csrf } satisfies Record<string, SecurityHandler>;
