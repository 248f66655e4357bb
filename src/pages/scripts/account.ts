/** The account page: its profile part, its control sections, passkeys, the authenticator app and linked accounts. */
import { startAuthenticator } from './account-authenticator.js';
import { startControl } from './account-control.js';
import { startPasskeys } from './account-passkeys.js';
import { startProfile } from './account-profile.js';
import { startLinkedAccounts } from './account-upstream-identities.js';

startProfile();
startControl();
startPasskeys();
startAuthenticator();
startLinkedAccounts();
