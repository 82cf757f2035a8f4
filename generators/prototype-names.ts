/**
 * The names every plain object answers: the own properties of Object.prototype. In a body they
 * are ordinary property names, and a program that looks a body's names up in a plain object finds
 * a function (`constructor`, `toString`) or the prototype itself (`__proto__`) where it expected
 * nothing. So every generator of a body's property names draws them too, and the boundary lists
 * hold each of them as an explicit case. Written out rather than read from Object.prototype, so
 * that a seed draws the same values on every Node; tests/self/generators-patch.spec.ts checks the
 * list still holds every name of the running Node's Object.prototype.
 */
import fc from 'fast-check';

export const PROTOTYPE_NAMES: readonly string[] = [
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  'toString',
  'valueOf',
];

/** One of the names of Object.prototype, as a property name. */
export function prototypeName(): fc.Arbitrary<string> {
  return fc.constantFrom(...PROTOTYPE_NAMES);
}
