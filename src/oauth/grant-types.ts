/**
 * The grants an app may use at the token endpoint (its RFC 7591 `grant_types`): the contract's
 * GrantType enum, read from the contract as the scopes are. Every app may use
 * `authorization_code`; `refresh_token` makes the `offline_access` scope mean something for it;
 * `urn:ietf:params:oauth:grant-type:device_code` lets it start sign-ins on a device (src/oauth/device.ts).
 */
import type { components } from '../../generated/api.js';
import { schemaEnum } from '../contract.js';
import { GRANT_TYPES as DOMAIN_GRANT_TYPES, type GrantType } from '../domain/apps.js';
import { InvalidInput } from '../domain/errors.js';

/** The domain's GrantType is the contract's, both ways (a compile-time check). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameAsContract: Same<GrantType, components['schemas']['GrantType']> = true;
void sameAsContract;

/** Every grant, in the contract's order (the domain's list, checked against the contract's at start). */
export const GRANT_TYPES: readonly GrantType[] = DOMAIN_GRANT_TYPES;
if (schemaEnum('GrantType').join(' ') !== GRANT_TYPES.join(' ')) throw new Error('src/domain/apps.ts GRANT_TYPES differs from the contract\'s GrantType enum');

/** What an app gets when its registration names none. */
export const DEFAULT_GRANT_TYPES: readonly GrantType[] = ['authorization_code'];

/**
 * An app's grant list from a request: duplicates dropped, in the contract's order. Every app
 * keeps `authorization_code`: it is how each of its sign-ins starts (the refresh grant only
 * continues one), so a list without it is refused.
 */
export function appGrantTypes(names: readonly string[]): GrantType[] {
  const unknown = names.find((n) => !(GRANT_TYPES as readonly string[]).includes(n));
  if (unknown !== undefined) throw new InvalidInput(`Unknown grant type "${unknown}": one of ${GRANT_TYPES.join(', ')}`);
  if (!names.includes('authorization_code')) throw new InvalidInput('grant_types must include authorization_code');
  return GRANT_TYPES.filter((g) => names.includes(g));
}

/** Whether the app may use refresh tokens (and so be granted `offline_access`). */
export function allowsRefresh(app: { grantTypes: readonly GrantType[] }): boolean {
  return app.grantTypes.includes('refresh_token');
}

/** RFC 8628's grant type: the device polls the token endpoint with it. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code' satisfies GrantType;

/** unauthorized_client's words for an app without the device grant, at either of its endpoints. */
export const DEVICE_FLOW_NOT_ALLOWED = 'This app may not use the device flow: its grant_types lack urn:ietf:params:oauth:grant-type:device_code';

/** Whether the app may start sign-ins on a device without a browser (RFC 8628). */
export function allowsDevice(app: { grantTypes: readonly GrantType[] }): boolean {
  return app.grantTypes.includes(DEVICE_CODE_GRANT);
}
