/**
 * Placeholders for the profile and moderation pages (issue 26): their HTML is built on another
 * branch, which replaces this file. Until then both answer with the HTML error page.
 */
import { Forbidden, NotFound } from '../domain/errors.js';
import type { Handler } from './types.js';

export const getProfilePage: Handler<'getProfilePage'> = async () => {
  throw new NotFound('User not found');
};

export const getModerationPage: Handler<'getModerationPage'> = async () => {
  throw new Forbidden('Only moderators may do this');
};
