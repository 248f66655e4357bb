import type { SignInRecord } from '../../domain/sign-ins.js';
import { Queries } from '../queries.js';
import { type Row, isRowId } from '../rows.js';
import { toSignIn } from './rows.js';

/** SignInStore (store.ts) in knex: store.signIns in KnexStore (src/store/knex-store.ts), on both databases. */
export class SignInsQueries extends Queries {
  async recordSignIn(userId: number, signIn: SignInRecord, keep: number): Promise<void> {
    if (!isRowId(userId)) return;
    await this.knex.transaction(async (trx) => {
      await trx('sign_ins').insert({ user_id: userId, at: signIn.at, ip: signIn.ip, user_agent: signIn.userAgent, upstream: signIn.upstream });
      const kept = trx('sign_ins').select('id').where({ user_id: userId }).orderBy([{ column: 'at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(keep);
      await trx('sign_ins').where({ user_id: userId }).whereNotIn('id', kept).delete();
    });
  }

  async listSignIns(userId: number, limit: number): Promise<SignInRecord[]> {
    if (!isRowId(userId)) return [];
    const rows = (await this.knex('sign_ins')
      .where({ user_id: userId })
      .orderBy([{ column: 'at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .limit(limit)) as Row[];
    return rows.map(toSignIn);
  }
}
