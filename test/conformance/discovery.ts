/**
 * The discovery document's checks of the Config OP plan (oidcc-discovery-endpoint-verification,
 * OIDCCDiscoveryEndpointVerification) and of the RP-Initiated Logout plan's first module, named
 * after the suite's conditions, with their severities.
 */
import type { ModuleRun } from './harness.js';
import { checkJwks, getJson, type Op } from './relying-party.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The conditions that hold only for an https deployment (docs/operations.md#https-and-the-openid-conformance-plans). */
export const HTTPS_CONDITIONS = [
  'CheckDiscEndpointDiscoveryUrl',
  'CheckDiscEndpointIssuerIsValidUrl',
  'CheckDiscEndpointAuthorizationEndpoint',
  'CheckDiscEndpointTokenEndpoint',
  'CheckDiscEndpointUserinfoEndpoint',
  'CheckJwksUri',
  'CheckDiscEndpointAllEndpointsAreHttps',
  'CheckDiscEndSessionEndpoint',
] as const;

/**
 * The members the suite's metadata schema defines (json-schemas/rfc8414/
 * oauth_authorization_server_metadata.json, additionalProperties false), which
 * CheckForUnexpectedParametersInServerMetadata reads.
 */
const KNOWN_METADATA = new Set([
  'acr_values_supported', 'attachments_supported', 'authorization_challenge_endpoint', 'authorization_details_types_supported',
  'authorization_encryption_alg_values_supported', 'authorization_encryption_enc_values_supported', 'authorization_endpoint',
  'authorization_response_iss_parameter_supported', 'authorization_signing_alg_values_supported',
  'backchannel_authentication_endpoint', 'backchannel_authentication_request_signing_alg_values_supported',
  'backchannel_logout_session_supported', 'backchannel_logout_supported', 'backchannel_token_delivery_modes_supported',
  'backchannel_user_code_parameter_supported', 'challenge_endpoint', 'check_session_iframe', 'claim_types_supported',
  'claims_in_verified_claims_supported', 'claims_locales_supported', 'claims_parameter_supported', 'claims_supported',
  'client_attestation_pop_signing_alg_values_supported', 'client_attestation_signing_alg_values_supported',
  'client_id_metadata_document_supported', 'client_registration_types_supported', 'code_challenge_methods_supported', 'contacts',
  'description', 'device_authorization_endpoint', 'display_name', 'display_values_supported',
  'documents_check_methods_supported', 'documents_methods_supported', 'documents_supported', 'dpop_signing_alg_values_supported',
  'electronic_records_supported', 'end_session_endpoint', 'evidence_supported', 'federation_registration_endpoint',
  'frontchannel_logout_session_supported', 'frontchannel_logout_supported', 'global_token_revocation_endpoint',
  'global_token_revocation_endpoint_auth_methods_supported', 'grant_management_action_required',
  'grant_management_actions_supported', 'grant_management_endpoint', 'grant_types_supported',
  'id_token_encryption_alg_values_supported', 'id_token_encryption_enc_values_supported',
  'id_token_signing_alg_values_supported', 'information_uri', 'introspection_encryption_alg_values_supported',
  'introspection_encryption_enc_values_supported', 'introspection_endpoint', 'introspection_endpoint_auth_methods_supported',
  'introspection_endpoint_auth_signing_alg_values_supported', 'introspection_signing_alg_values_supported', 'issuer', 'jwks',
  'jwks_uri', 'keywords', 'logo_uri', 'mtls_endpoint_aliases', 'op_policy_uri', 'op_tos_uri', 'organization_name',
  'organization_uri', 'pre-authorized_grant_anonymous_access_supported', 'prompt_values_supported', 'protected_resources',
  'pushed_authorization_request_endpoint', 'registration_endpoint', 'request_authentication_methods_supported',
  'request_authentication_signing_alg_values_supported', 'request_object_encryption_alg_values_supported',
  'request_object_encryption_enc_values_supported', 'request_object_signing_alg_values_supported', 'request_parameter_supported',
  'request_uri_parameter_supported', 'require_pushed_authorization_requests', 'require_request_uri_registration',
  'require_signed_request_object', 'response_modes_supported', 'response_types_supported', 'revocation_endpoint',
  'revocation_endpoint_auth_methods_supported', 'revocation_endpoint_auth_signing_alg_values_supported', 'scopes_supported',
  'service_documentation', 'signed_jwks_uri', 'signed_metadata', 'status_list_aggregation_endpoint', 'subject_types_supported',
  'tls_client_certificate_bound_access_tokens', 'token_endpoint', 'token_endpoint_auth_methods_supported',
  'token_endpoint_auth_signing_alg_values_supported', 'transformed_claims_functions_supported', 'transformed_claims_predefined',
  'trust_frameworks_supported', 'ui_locales_supported', 'userinfo_encryption_alg_values_supported',
  'userinfo_encryption_enc_values_supported', 'userinfo_endpoint', 'userinfo_signing_alg_values_supported'

]);

/** A URL with the https scheme, as the CheckDiscEndpoint…Endpoint conditions want it. */
function httpsUrl(value: unknown, member: string): string | undefined {
  if (typeof value !== 'string' || !URL.canParse(value)) return `${member} is not a URL`;
  return new URL(value).protocol === 'https:' ? undefined : `${member} is not https: ${value}`;
}

/** GetDynamicServerConfiguration and the HTTP checks of the Config plan's configure(). */
export async function fetchDiscovery(m: ModuleRun, op: Op, checkHttp: boolean): Promise<Record<string, unknown>> {
  const { status, type, body } = await getJson(op, op.discoveryUrl);
  m.require('GetDynamicServerConfiguration', () => (isObject(body) ? undefined : 'not a JSON object'));
  if (checkHttp) {
    m.check('EnsureDiscoveryEndpointResponseStatusCodeIs200', 'FAILURE', () => (status === 200 ? undefined : `HTTP ${status}`));
    m.check('CheckDiscoveryEndpointReturnedJsonContentType', 'FAILURE', () => (type.split(';')[0]!.trim() === 'application/json' ? undefined : type));
  }
  return body as Record<string, unknown>;
}

/** CheckDiscEndpointAllEndpointsAreHttps: every `*_endpoint` member is an https URL. */
export function allEndpointsAreHttps(m: ModuleRun, metadata: Record<string, unknown>): void {
  m.check('CheckDiscEndpointAllEndpointsAreHttps', 'FAILURE', () => {
    for (const [member, value] of Object.entries(metadata)) {
      if (!member.endsWith('_endpoint')) continue;
      const problem = httpsUrl(value, member);
      if (problem) return problem;
    }
    return undefined;
  });
}

/** oidcc-discovery-endpoint-verification's start(), rows 1 to 28 (static client, discovery). */
export async function verifyDiscovery(m: ModuleRun, op: Op): Promise<void> {
  const d = await fetchDiscovery(m, op, true);
  const list = (member: string): unknown[] | undefined => (Array.isArray(d[member]) ? (d[member] as unknown[]) : undefined);
  m.check('OIDCCCheckDiscEndpointResponseTypesSupported', 'FAILURE', () => {
    const known = ['code', 'code id_token', 'id_token', 'token id_token', 'code id_token token', 'code token'].map((t) => t.split(' ').sort().join(' '));
    return list('response_types_supported')?.some((t) => typeof t === 'string' && known.includes(t.split(' ').sort().join(' '))) ? undefined : 'no known response type';
  });
  m.check('CheckDiscEndpointDiscoveryUrl', 'FAILURE', () => {
    const url = new URL(op.discoveryUrl);
    if (!url.pathname.endsWith('/.well-known/openid-configuration')) return 'not a /.well-known/openid-configuration address';
    return url.protocol === 'https:' ? undefined : `the discovery URL is not https: ${op.discoveryUrl}`;
  });
  m.check('CheckDiscEndpointIssuer', 'FAILURE', () => {
    const expected = op.discoveryUrl.replace(/\.well-known\/openid-configuration$/, '').replace(/\/$/, '');
    return typeof d.issuer === 'string' && d.issuer.replace(/\/$/, '') === expected ? undefined : `issuer ${String(d.issuer)} is not ${expected}`;
  });
  m.check('CheckDiscEndpointIssuerIsValidUrl', 'FAILURE', () => {
    if (typeof d.issuer !== 'string' || !URL.canParse(d.issuer)) return 'issuer is not a URL';
    const url = new URL(d.issuer);
    if (url.protocol !== 'https:') return `issuer is not https: ${d.issuer}`;
    return url.search || url.hash || url.username ? 'issuer has a query, fragment or user info' : undefined;
  });
  m.check('ValidateServerMetadataAgainstSchema', 'FAILURE', () => {
    for (const [member, value] of Object.entries(d)) {
      if ((member.endsWith('_endpoint') || ['issuer', 'jwks_uri', 'service_documentation', 'op_policy_uri', 'op_tos_uri'].includes(member)) && (typeof value !== 'string' || !URL.canParse(value))) return `${member} is not a URI`;
      if (member.endsWith('_supported') && typeof value !== 'boolean' && !(Array.isArray(value) && value.every((v) => typeof v === 'string'))) return `${member} is not an array of strings`;
      if (['claims_parameter_supported', 'request_parameter_supported', 'request_uri_parameter_supported', 'require_request_uri_registration', 'frontchannel_logout_supported', 'backchannel_logout_supported', 'authorization_response_iss_parameter_supported'].includes(member) && typeof value !== 'boolean') return `${member} is not a boolean`;
    }
    return undefined;
  });
  m.check('CheckForUnexpectedParametersInServerMetadata', 'WARNING', () => {
    const unexpected = Object.keys(d).filter((member) => !KNOWN_METADATA.has(member));
    return unexpected.length ? `not in the metadata schema: ${unexpected.join(', ')}` : undefined;
  });
  m.check('CheckDiscEndpointSubjectTypesSupported', 'FAILURE', () => (list('subject_types_supported')?.some((t) => t === 'public' || t === 'pairwise') ? undefined : 'no public or pairwise'));
  m.check('OIDCCCheckDiscEndpointIdTokenSigningAlgValuesSupported', 'FAILURE', () => (list('id_token_signing_alg_values_supported')?.includes('RS256') ? undefined : 'RS256 not listed'));
  if (d.userinfo_signing_alg_values_supported !== undefined) {
    m.check('OIDCCCheckDiscEndpointUserinfoSigningAlgValuesSupported', 'FAILURE', () => (list('userinfo_signing_alg_values_supported') ? undefined : 'not an array'));
  }
  m.check('CheckDiscEndpointAuthorizationEndpoint', 'FAILURE', () => httpsUrl(d.authorization_endpoint, 'authorization_endpoint'));
  m.check('CheckDiscEndpointTokenEndpoint', 'FAILURE', () => httpsUrl(d.token_endpoint, 'token_endpoint'));
  m.check('CheckDiscEndpointUserinfoEndpoint', d.userinfo_endpoint === undefined ? 'WARNING' : 'FAILURE', () => httpsUrl(d.userinfo_endpoint, 'userinfo_endpoint'));
  if (d.registration_endpoint !== undefined) m.check('CheckDiscEndpointRegistrationEndpoint', 'FAILURE', () => httpsUrl(d.registration_endpoint, 'registration_endpoint'));
  m.check('CheckJwksUri', 'FAILURE', () => httpsUrl(d.jwks_uri, 'jwks_uri'));
  const jwks = (await getJson(op, String(d.jwks_uri))).body;
  m.require('FetchServerKeys', () => (isObject(jwks) ? undefined : 'the keys are not JSON'));
  checkJwks(m, jwks, false);
  m.check('CheckDiscEndpointRequestParameterSupported', 'INFO', () => (d.request_parameter_supported === true ? undefined : 'request objects are not supported'));
  m.check('CheckDiscEndpointRequestUriParameterSupported', 'INFO', () => (d.request_uri_parameter_supported !== false ? undefined : 'request_uri is not supported'));
  if (d.request_object_signing_alg_values_supported !== undefined) {
    m.check('CheckDiscEndpointRequestObjectSigningAlgValuesSupportedIncludesRS256', 'WARNING', () => (list('request_object_signing_alg_values_supported')?.includes('RS256') ? undefined : 'RS256 not listed'));
  }
  m.check('CheckDiscEndpointClaimsParameterSupported', 'INFO', () => (d.claims_parameter_supported === true ? undefined : 'the claims parameter is not supported'));
  m.check('OIDCCCheckDiscEndpointClaimsSupported', 'WARNING', () => (list('claims_supported') ? undefined : 'no claims_supported array'));
  m.check('OIDCCCheckDiscEndpointGrantTypesSupported', 'FAILURE', () => (d.grant_types_supported === undefined || (list('grant_types_supported')?.length ?? 0) > 0 ? undefined : 'an empty or non-array grant_types_supported'));
  m.check('CheckDiscEndpointScopesSupportedContainsOpenId', d.scopes_supported === undefined ? 'WARNING' : 'FAILURE', () => (list('scopes_supported')?.includes('openid') ? undefined : 'openid not listed'));
  m.check('CheckDiscEndpointScopesSupportedSyntax', 'FAILURE', () => (list('scopes_supported') ?? []).every((s) => typeof s === 'string' && /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(s)) ? undefined : 'a scope outside RFC 6749 scope-token characters');
  m.check('CheckDiscEndpointLocalesSyntax', 'FAILURE', () => {
    for (const member of ['ui_locales_supported', 'claims_locales_supported']) {
      if (d[member] === undefined) continue;
      if (!list(member)?.every((tag) => typeof tag === 'string' && Intl.getCanonicalLocales(tag).length === 1)) return `${member} holds a tag that is not BCP 47`;
    }
    return undefined;
  });
  allEndpointsAreHttps(m, d);
  m.check('EnsureServerConfigurationCodeChallengeMethodsSupportedIsAnArray', 'FAILURE', () => {
    const methods = d.code_challenge_methods_supported;
    if (methods === undefined) return undefined;
    return Array.isArray(methods) && (methods.length === 0 || methods.includes('S256') || methods.includes('plain')) ? undefined : 'neither S256 nor plain';
  });
}
