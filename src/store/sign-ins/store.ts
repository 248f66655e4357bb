import type { SignInRecord } from '../../domain/sign-ins.js';

/** The record of each user's recent sign-ins, shown on the account page. */
export interface SignInStore {
  /** Records a sign-in and keeps only the user's latest `keep` (older ones are deleted). */
  recordSignIn(userId: number, signIn: SignInRecord, keep: number): Promise<void>;
  /** A user's latest sign-ins, newest first. */
  listSignIns(userId: number, limit: number): Promise<SignInRecord[]>;
}
