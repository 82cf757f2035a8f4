/**
 * npm run gallery:diff [-- <variant id part>...]: runs the suite against each gallery variant
 * (or those whose id contains one of the arguments) and prints, for every variant whose
 * findings differ from what it declares, the requirements found in excess (+) and missed (-),
 * and the probes that did not complete. V=1 prints the findings too. A development aid: the
 * self-test gallery.spec.ts asserts the same, one test per variant, on the probes each variant's
 * requirements select and the sentinels; this runs the whole suite against each (on the run's own
 * clock, shared with the server, and with the variant's settle window, as the gallery does).
 */
import { GALLERY } from '../servers/gallery/index.ts';
import { describeTripped, runVariant } from '../tests/self/suite-runner.ts';
const only = process.argv.slice(2);
let bad = 0;
for (const v of GALLERY) {
  if (only.length && !only.some((o) => v.id.includes(o))) continue;
  {
    const run = await runVariant(v, { all: true });
    const want = [...v.trips].sort();
    const extra = run.tripped.filter((t) => !want.includes(t as never));
    const missing = want.filter((t) => !run.tripped.includes(t));
    if (extra.length || missing.length || run.incomplete.length) {
      bad++;
      console.log(
        `${v.id}: +[${extra}] -[${missing}] ${run.incomplete.map((i) => i.probe + ':' + i.reason).join(' ')}`,
      );
      if (process.env.V)
        console.log(
          describeTripped(run)
            .split('\n')
            .map((l) => '    ' + l.slice(0, 300))
            .join('\n'),
        );
    }
  }
}
console.log(`${bad} variant(s) differ`);
