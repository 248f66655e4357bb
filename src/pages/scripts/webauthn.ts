/**
 * The WebAuthn ceremonies of the pages, between the contract's types and the browser library's
 * (@simplewebauthn/browser). The contract describes WebAuthn's JSON loosely (the members as the
 * specification names them, most optional, the extensions' outputs an open object); the server makes
 * the options and checks the answers with @simplewebauthn/server, whose types the browser library
 * shares. The one conversion each way is here, so no page script casts API data.
 */
import {
  startAuthentication,
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import type { components } from '../../../generated/api.js';

type Schemas = components['schemas'];

/** Signs in or confirms with a passkey: the options as the service gave them, the answer as the service takes it. */
export async function authenticate(options: object, useBrowserAutofill = false): Promise<Schemas['PasskeyAssertion']> {
  const credential = await startAuthentication({ optionsJSON: options as PublicKeyCredentialRequestOptionsJSON, useBrowserAutofill });
  return credential as unknown as Schemas['PasskeyAssertion'];
}

/** Makes a passkey: the options as the service gave them, the answer as the service takes it. */
export async function register(options: object): Promise<Schemas['PasskeyRegistration']> {
  const credential = await startRegistration({ optionsJSON: options as PublicKeyCredentialCreationOptionsJSON });
  return credential as unknown as Schemas['PasskeyRegistration'];
}
