/**
 * The request model's public face: what a valid request to the interface is, for the oracles
 * (judging an answer against the request it answers), the generators (cases from the rules) and
 * the validator (traffic the suite did not send). See docs/writing-checks.md, "The request model".
 */
export {
  FAMILIES,
  OPEN_POINTS,
  RULES,
  breaksMust,
  brokenRules,
  modelRequest,
  openCases,
  openPoint,
  openPoints,
  requestOfExchange,
  requestOfHarEntry,
  rule,
  ruleCases,
} from './model.ts';
export { equivalents, type Rewriting } from './equivalence.ts';
export { bodyRuleId, DETAILS_OR_ACCOUNTS } from './body-schema.ts';
export { branchType } from './relations.ts';
export { pathOfField } from './schema-sites.ts';
export { ENUMERATION_OPTIONS, SAMPLE_ACCOUNTS } from './samples.ts';
export type * from './types.ts';
