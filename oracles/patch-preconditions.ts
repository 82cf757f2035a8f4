/**
 * A PATCH with preconditions is performed only when they hold. Requirement: patch-preconditions
 * (MUST).
 *
 * Rests on RFC 9110:
 * - §13.1.1: If-Match is compared strongly; "An origin server that evaluates an If-Match condition
 *   MUST NOT perform the requested method if the condition evaluates to false."; it may answer 412,
 *   or 2xx where "the request is a state-changing operation that appears to have already been
 *   applied to the selected representation".
 * - §13.1.2: If-None-Match is compared weakly; when its condition is false the server "MUST respond
 *   with ... b) the 412 (Precondition Failed) status code for all other request methods".
 * - §15.5.13: a 412 "indicates that one or more conditions given in the request header fields
 *   evaluated to false".
 *
 * Applies to a PATCH of a counterparty carrying If-Match or If-None-Match, where the read before it
 * (engine/judge.ts) carried a strong entity tag: that tag is the current one the conditions are
 * evaluated against, in the order of §13.2.2.
 * - A condition false (If-Match names no tag that matches it strongly, or If-None-Match is "*" or
 *   names it): the PATCH must change nothing. A 412 holds (that it changed nothing is
 *   patch-rejected's business); a 2xx holds only where its answer, and the read after, show the
 *   counterparty as before on what the document settles (the change appears applied already).
 * - Both conditions true: the PATCH must not be refused with 412, judged only where the read after
 *   it still carries the same tag (no other client changed the counterparty meanwhile).
 * A read before with a weak tag, or none, is not judged: a weak tag never matches If-Match, and a
 * deployment that offers no strong tag offers no lost-update prevention.
 */
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { comparable, differences, isObj } from './compare.ts';
import {
  conditionsOf,
  etagOf,
  listed,
  showList,
  showTag,
  strongMatch,
  weakMatch,
  type EntityTag,
} from './entity-tag.ts';
import { held, violated, type Judgement, type PatchOracle } from './types.ts';

const ID = 'patch-preconditions';

/** Why the PATCH's conditions are false against the current tag, or undefined when they hold. */
function falseCondition(patch: Exchange, current: EntityTag): string | undefined {
  const { ifMatch, ifNoneMatch } = conditionsOf(patch);
  if (ifMatch !== undefined && ifMatch !== '*' && !listed(ifMatch, current, strongMatch))
    return `If-Match: ${showList(ifMatch)} names no tag matching the current ${showTag(current)}`;
  if (ifNoneMatch !== undefined && (ifNoneMatch === '*' || listed(ifNoneMatch, current, weakMatch)))
    return `If-None-Match: ${showList(ifNoneMatch)} matches the current ${showTag(current)}`;
  return undefined;
}

/** Whether an answer shows the counterparty as `before` did, on what the document settles. */
const unchanged = (before: Exchange, answer: Exchange): boolean =>
  isObj(before.body) &&
  isObj(answer.body) &&
  differences(comparable(before.body), comparable(answer.body)).length === 0;

export const PATCH_PRECONDITIONS_ORACLE: PatchOracle = {
  id: 'patch-preconditions',
  kind: 'patch',
  requirements: [ID],
  unexercised: {
    [ID]: 'no PATCH carried If-Match or If-None-Match after a read that carried a strong entity tag',
  },
  judge({ before, patch, after }): Judgement[] {
    const conditions = conditionsOf(patch);
    if (conditions.ifMatch === undefined && conditions.ifNoneMatch === undefined) return [];
    if (before === undefined || !is2xx(before.status) || patch.status === 0) return [];
    const current = etagOf(before);
    if (current === undefined || current.weak) return [];
    const why = falseCondition(patch, current);
    if (why !== undefined) {
      if (!is2xx(patch.status)) return [held(ID)];
      const changed = [patch, after].find((a) => a !== undefined && is2xx(a.status) && !unchanged(before, a));
      if (changed === undefined) return [held(ID)];
      return [
        violated({
          requirement: ID,
          exchange: patch,
          message: `a PATCH whose precondition was false was applied: ${why}`,
          expected:
            '412 (Precondition Failed) and the counterparty unchanged: the lost update prevented (RFC 9110 §13.1.1, §13.1.2)',
          received: `${patch.status}, and ${changed === patch ? 'its answer' : 'the read after it'} shows the counterparty changed`,
          context: [before, ...(after ? [after] : [])],
        }),
      ];
    }
    if (patch.status !== 412) return is2xx(patch.status) ? [held(ID)] : [];
    const later = after && is2xx(after.status) ? etagOf(after) : undefined;
    if (later === undefined || !strongMatch(later, current)) return [];
    return [
      violated({
        requirement: ID,
        exchange: patch,
        message: `a PATCH whose preconditions hold against the current entity tag ${showTag(current)} was refused with 412`,
        expected:
          'the PATCH performed: its preconditions are true against the current tag (RFC 9110 §13.1.1, §15.5.13)',
        received: `412, and the reads before and after it both carry ETag: ${showTag(current)}`,
        context: [before, after!],
      }),
    ];
  },
};
