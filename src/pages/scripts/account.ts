/** The account page: its profile part, the confirmation card, its control sections, passkeys, the authenticator app and linked accounts. */
import { startAuthenticator } from './account-authenticator.js';
import { startConfirmation } from './account-confirmation.js';
import { startControl } from './account-control.js';
import { startPasskeys } from './account-passkeys.js';
import { startProfile } from './account-profile.js';
import { startLinkedAccounts } from './account-upstream-identities.js';

startProfile();
startConfirmation();
startControl();
startPasskeys();
startAuthenticator();
startLinkedAccounts();
