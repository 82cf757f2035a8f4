/**
 * What the judge (engine/judge.ts) hands the oracles once it has assembled a sequence: every
 * oracle of the kind, and their judgements back with the evidence the oracles saw mapped to the
 * exchanges logged (the judge shows the oracles copies: a state with some fields as another
 * exchange had them, a read without the fields that move by themselves).
 */
import type { Exchange } from '../exchange/exchange.ts';
import type { AnswerPair, Judgement, Oracle, PatchSequence } from '../oracles/types.ts';
import { withoutMoving } from './judge-states.ts';

export interface OracleJudgement {
  oracle: string;
  judgement: Judgement;
}

/**
 * Judges a PATCH sequence with every patch oracle, without the fields in `moving` (those the
 * PATCHes sent stay: withoutMoving); `copies` maps an exchange of it the judge made back to the
 * one logged, and a failed judgement's evidence is mapped back through both.
 */
export function judgeSequence(
  oracles: readonly Oracle[],
  s: PatchSequence,
  moving: ReadonlySet<string> | undefined,
  copies: ReadonlyMap<Exchange, Exchange>,
): OracleJudgement[] {
  const seen = moving && moving.size > 0 ? withoutMoving(s, moving) : { sequence: s, original: undefined };
  const back =
    seen.original || copies.size > 0
      ? (ex: Exchange): Exchange => {
          const logged = seen.original ? seen.original(ex) : ex;
          return copies.get(logged) ?? logged;
        }
      : undefined;
  const out: OracleJudgement[] = [];
  for (const o of oracles) {
    if (o.kind !== 'patch') continue;
    for (const judgement of o.judge(seen.sequence))
      out.push({
        oracle: o.id,
        judgement:
          judgement.held || !back
            ? judgement
            : {
                ...judgement,
                exchange: back(judgement.exchange),
                ...(judgement.context ? { context: judgement.context.map(back) } : {}),
              },
      });
  }
  return out;
}

/** Judges two reads of one counterparty (and the writes between them) with every pair oracle. */
export function judgePair(oracles: readonly Oracle[], pair: AnswerPair): OracleJudgement[] {
  const out: OracleJudgement[] = [];
  for (const o of oracles) {
    if (o.kind !== 'pair') continue;
    for (const judgement of o.judge(pair)) out.push({ oracle: o.id, judgement });
  }
  return out;
}
