/** Rules for text people type that other people are shown (names, titles, user agents). */

/**
 * C0 control characters and DEL: never part of a name or title; they reorder or hide what a
 * reader sees. Matching them is this regex's whole purpose.
 */
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
/** The same, and every one of them (to strip them). */
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;
/** Control characters or a space: never part of a URI as it is registered. */
// eslint-disable-next-line no-control-regex
export const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f]/;
