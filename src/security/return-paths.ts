/**
 * The one rule for every local redirect target (docs/account.md#return-paths): a `return_to`, a
 * session's remembered way back, a JSON `redirect`, an `href`. It reads the value as a browser
 * would, against PUBLIC_URL, and keeps it only when the browser would stay on this service; what
 * it returns is the path as the URL parser writes it, safe to send anywhere as it is.
 */
import { CONTROL_CHARACTER } from '../domain/text.js';

/**
 * The longest `return_to` followed: it holds the longest authorization request the contract allows
 * (authorizeAddress in src/handlers/getAuthorize.ts); a longer one is ignored, like any other
 * unusable one. The sign-in address that carries it still fits MAX_REQUEST_TARGET
 * (src/http/client-errors.ts; test/http/request-limits.test.ts checks both).
 */
export const RETURN_TO_MAX = 64 * 1024;

declare const checked: unique symbol;
/**
 * A path localPath kept. The pages that emit a way back and the sign-in steps that keep it in the
 * session (src/http/signed-in.ts, src/http/upstream-sign-in.ts) take this type, so a value that
 * did not pass the check does not compile there; one read back from the session is a plain
 * string again, and is checked again before it is followed.
 */
export type LocalPath = string & { readonly [checked]: true };

/**
 * Refused anywhere in the value: C0 controls (TAB, CR and LF among them, which browsers strip from
 * a URL before parsing it, so `/\t/evil.example/` is `//evil.example/` to them), DEL, and the
 * backslash, which the URL parser reads as a slash in http(s) addresses (`/\evil.example`).
 */
const refused = (raw: string): boolean => CONTROL_CHARACTER.test(raw) || raw.includes('\\');

/**
 * `raw` as a path on this service (path, query and fragment, as `new URL` serializes them), or
 * undefined when it is not a string, is empty, longer than RETURN_TO_MAX (before or after
 * serializing), holds a refused character, or resolves against `publicUrl` to another origin (or
 * scheme).
 * An absolute address of this service's own origin is kept as its path.
 */
export function localPath(raw: unknown, publicUrl: string): LocalPath | undefined {
  if (typeof raw !== 'string' || raw === '' || raw.length > RETURN_TO_MAX || refused(raw)) return undefined;
  const base = new URL(publicUrl);
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return undefined;
  }
  // The scheme too: a `blob:` address has the origin of the address inside it, and that whole
  // address for its path (`blob:http://localhost:3000/x`).
  if (url.protocol !== base.protocol || url.origin !== base.origin) return undefined;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // `/.//evil.example` resolves to the path `//evil.example`, which read again names a host.
  if (path.startsWith('//') || path.length > RETURN_TO_MAX) return undefined;
  return path as LocalPath;
}
