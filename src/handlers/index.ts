/**
 * The registry of handlers: one per operationId of openapi.yaml, each in its own file
 * (src/handlers/<operationId>.ts; test/handlers/layout.test.ts checks the folder), bound to its
 * operation by src/http/operations.ts.
 */
import type { operations } from '../../generated/api.js';
import type { Handler } from '../http/handler.js';
import { exchangeToken } from './exchangeToken.js';
import { startDeviceAuthorization } from './startDeviceAuthorization.js';
import { revokeToken } from './revokeToken.js';
import { introspectToken } from './introspectToken.js';
import { getAuthorizationServerMetadata } from './getAuthorizationServerMetadata.js';
import { getOpenIdConfiguration } from './getOpenIdConfiguration.js';
import { getJwks } from './getJwks.js';
import { getOidcUserInfo } from './getOidcUserInfo.js';
import { postOidcUserInfo } from './postOidcUserInfo.js';
import { getLogout } from './getLogout.js';
import { postLogout } from './postLogout.js';
import { confirmLogout } from './confirmLogout.js';
import { getWhois } from './getWhois.js';
import { getUserInfo } from './getUserInfo.js';
import { getProfilePicture } from './getProfilePicture.js';
import { getHealth } from './getHealth.js';
import { getContractYaml } from './getContractYaml.js';
import { getContractJson } from './getContractJson.js';
import { getDocs } from './getDocs.js';
import { getDocsAsset } from './getDocsAsset.js';
import { getHome } from './getHome.js';
import { getAsset } from './getAsset.js';
import { getSignIn } from './getSignIn.js';
import { postSignIn } from './postSignIn.js';
import { getSignInSecondStep } from './getSignInSecondStep.js';
import { postSignInSecondStep } from './postSignInSecondStep.js';
import { getSignUp } from './getSignUp.js';
import { postSignUp } from './postSignUp.js';
import { postSignOut } from './postSignOut.js';
import { getAccountPage } from './getAccountPage.js';
import { getAppsPage } from './getAppsPage.js';
import { getGamesPage } from './getGamesPage.js';
import { getPlayPage } from './getPlayPage.js';
import { getProfilePage } from './getProfilePage.js';
import { getModerationPage } from './getModerationPage.js';
import { getGameSdk } from './getGameSdk.js';
import { getGameSdkTypes } from './getGameSdkTypes.js';
import { getAuthorize } from './getAuthorize.js';
import { postAuthorize } from './postAuthorize.js';
import { getDevicePage } from './getDevicePage.js';
import { postDevice } from './postDevice.js';
import { startUpstreamSignIn } from './startUpstreamSignIn.js';
import { finishUpstreamSignIn } from './finishUpstreamSignIn.js';
import { getUpstreamSignUp } from './getUpstreamSignUp.js';
import { postUpstreamSignUp } from './postUpstreamSignUp.js';
import { getUpstreamLink } from './getUpstreamLink.js';
import { postUpstreamLink } from './postUpstreamLink.js';
import { getSession } from './getSession.js';
import { getAccount } from './getAccount.js';
import { updateAccount } from './updateAccount.js';
import { setAccountPicture } from './setAccountPicture.js';
import { removeAccountPicture } from './removeAccountPicture.js';
import { postHeartbeat } from './postHeartbeat.js';
import { listApps } from './listApps.js';
import { registerApp } from './registerApp.js';
import { updateApp } from './updateApp.js';
import { deleteApp } from './deleteApp.js';
import { rotateAppSecret } from './rotateAppSecret.js';
import { listGames } from './listGames.js';
import { registerGame } from './registerGame.js';
import { updateGame } from './updateGame.js';
import { deleteGame } from './deleteGame.js';
import { getGameApp } from './getGameApp.js';
import { issueGameCode } from './issueGameCode.js';
import { listGrants } from './listGrants.js';
import { revokeGrant } from './revokeGrant.js';
import { changePassword } from './changePassword.js';
import { setFirstPassword } from './setFirstPassword.js';
import { getSecondFactor } from './getSecondFactor.js';
import { startTotpSetup } from './startTotpSetup.js';
import { confirmTotpSetup } from './confirmTotpSetup.js';
import { disableTotp } from './disableTotp.js';
import { replaceRecoveryCodes } from './replaceRecoveryCodes.js';
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
import { passkeyRegistrationOptions } from './passkeyRegistrationOptions.js';
import { addPasskey } from './addPasskey.js';
import { listPasskeys } from './listPasskeys.js';
import { renamePasskey } from './renamePasskey.js';
import { removePasskey } from './removePasskey.js';
import { listUpstreamIdentities } from './listUpstreamIdentities.js';
import { unlinkUpstreamIdentity } from './unlinkUpstreamIdentity.js';
import { passkeyReauthOptions } from './passkeyReauthOptions.js';
import { reauthWithPasskey } from './reauthWithPasskey.js';
import { passkeySignInOptions } from './passkeySignInOptions.js';
import { signInWithPasskey } from './signInWithPasskey.js';
import { reportUser } from './reportUser.js';
import { listReports } from './listReports.js';
import { closeReport } from './closeReport.js';
import { findModerationUsers } from './findModerationUsers.js';
import { getModerationUser } from './getModerationUser.js';
import { suspendUser } from './suspendUser.js';
import { liftSuspension } from './liftSuspension.js';
import { hideBio } from './hideBio.js';
import { removePicture } from './removePicture.js';
import { removeGame } from './removeGame.js';
import { setModLevel } from './setModLevel.js';
import { listModerationActions } from './listModerationActions.js';

/** One handler per operationId; the compiler refuses a map that misses or invents an operation. */
export const operationHandlers: { [Op in keyof operations]: Handler<Op> } = {
  exchangeToken,
  startDeviceAuthorization,
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
  getDevicePage,
  postDevice,
  startUpstreamSignIn,
  finishUpstreamSignIn,
  getUpstreamSignUp,
  postUpstreamSignUp,
  getUpstreamLink,
  postUpstreamLink,
  getSession,
  getAccount,
  updateAccount,
  setAccountPicture,
  removeAccountPicture,
  postHeartbeat,
  listApps,
  registerApp,
  updateApp,
  deleteApp,
  rotateAppSecret,
  listGames,
  registerGame,
  updateGame,
  deleteGame,
  getGameApp,
  issueGameCode,
  listGrants,
  revokeGrant,
  changePassword,
  setFirstPassword,
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
  listUpstreamIdentities,
  unlinkUpstreamIdentity,
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
  removeGame,
  setModLevel,
  listModerationActions,
};
