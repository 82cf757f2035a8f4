/**
 * A strong entity tag changes with the counterparty, around a PATCH. Requirement:
 * strong-etag-changes (MUST; oracles/entity-tags.ts judges it between two reads).
 *
 * Rests on RFC 9110 §8.8.1 (a strong validator "changes value whenever a change occurs to the
 * representation data"), §8.8.3 (a tag that cannot be strong MUST be marked weak) and §8.8: "In a
 * successful response to a state-changing request, validator fields describe the new
 * representation that has replaced the prior selected representation as a result of processing
 * the request."
 *
 * Applies to a PATCH of a counterparty with the reads around it (engine/judge.ts): every two of
 * the read before, the accepted PATCH's answer and the read after that carry strong ETags. A PATCH
 * that changed the counterparty and kept its strong tag is the stale validator that makes a cache,
 * or a client revalidating with If-None-Match, keep the representation from before the change.
 * Refused PATCHes' answers are not representations; their reads are compared.
 */
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { judgeStrongTags } from './entity-tags.ts';
import type { Judgement, PatchOracle } from './types.ts';

export const PATCH_ENTITY_TAGS_ORACLE: PatchOracle = {
  id: 'patch-entity-tags',
  kind: 'patch',
  requirements: ['strong-etag-changes'],
  unexercised: {
    'strong-etag-changes':
      'no PATCH had two answers about the counterparty around it carrying strong entity tags',
  },
  judge({ before, patch, after }) {
    const answers = [before, is2xx(patch.status) ? patch : undefined, after].filter(
      (ex): ex is Exchange => ex !== undefined,
    );
    const out: Judgement[] = [];
    for (let i = 0; i < answers.length; i++)
      for (let j = i + 1; j < answers.length; j++) {
        const judgement = judgeStrongTags(answers[i]!, answers[j]!);
        if (judgement) out.push(judgement);
      }
    // One finding per PATCH: the first pair that shows it.
    const violation = out.find((j) => !j.held);
    return violation ? [violation] : out.slice(0, 1);
  },
};
