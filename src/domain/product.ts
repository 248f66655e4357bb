/**
 * The name people know the service by: the pages' brand, the default sender of its mail, and the
 * issuer an authenticator app shows beside the account's codes.
 */
export const PRODUCT_NAME = 'Identity';
