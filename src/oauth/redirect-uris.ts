/**
 * The addresses an app registers (redirect URIs, post-logout redirect URIs) and a game's URL: what
 * is a web address a browser may be sent to, and when a requested redirect URI matches a
 * registered one (RFC 8252 7.3's loopback ports).
 */
import { CONTROL_OR_SPACE } from '../domain/text.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * An address a browser is sent to or frames: absolute https, or http on localhost for
 * development, with no fragment. `label` names it in the message ("Redirect URI", "Game URL").
 */
export function webAddressProblem(uri: string, label: string): string | undefined {
  if (uri.length > 2048) return `${label} is longer than 2048 characters`;
  if (CONTROL_OR_SPACE.test(uri)) return `${label} must not contain spaces or control characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${label} is not an absolute URL: ${uri}`;
  }
  if (url.hash !== '' || uri.includes('#')) return `${label} must not contain a fragment: ${uri}`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return `${label} must use https (http is allowed on localhost only): ${uri}`;
}

/**
 * A loopback IP literal redirect URI, cut into host, port and the rest. Only IP literals get the
 * free port: RFC 8252 8.3 advises against `localhost`, which a resolver could send elsewhere.
 */
const LOOPBACK_IP_URI = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?([/?][^]*)?$/;

/**
 * Exact string match, except that a registered `http://127.0.0.1/...` or `http://[::1]/...`
 * matches the same URI on any port (RFC 8252 7.3): a native app listens on whatever port the
 * system gives it. Everything but the port must still be identical, character for character, so
 * no URL normalisation (case, percent-encoding, dot segments) can widen the match.
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  const reg = LOOPBACK_IP_URI.exec(registered);
  const req = LOOPBACK_IP_URI.exec(requested);
  if (!reg || !req) return false;
  if (req[2] !== undefined && (Number(req[2]) < 1 || Number(req[2]) > 65535)) return false;
  return reg[1] === req[1] && (reg[3] ?? '') === (req[3] ?? '');
}
