/** The account page: its profile part, its control sections, passkeys and the authenticator app. */
import { startAuthenticator } from './account-authenticator.js';
import { startControl } from './account-control.js';
import { startPasskeys } from './account-passkeys.js';
import { startProfile } from './account-profile.js';

startProfile();
startControl();
startPasskeys();
startAuthenticator();
