/**
 * Choosing what runs (config/selection.ts, among the probes of the registry, probes/index.ts),
 * the "not selected" verdict (engine/verdicts.ts), the stricter gate (--require-exercised,
 * reporter/gate.ts) and the replay line of a finding (reporter/replay.ts), in-process: no CLI
 * (tests/self/selection-cli.spec.ts runs it end to end).
 */
import { expect, test } from '@playwright/test';
import { ConfigError } from '../../config/error.ts';
import { parseRequireExercised } from '../../config/gate.ts';
import { parseReplayCase } from '../../config/selection.ts';
import { resolveSelection } from '../../config/selection.ts';
import { RunContext, emptyOutcome, runProbe } from '../../engine/run.ts';
import type { Finding, ProbeOutcome } from '../../engine/types.ts';
import { verdicts } from '../../engine/verdicts.ts';
import { basePathOf, route } from '../../exchange/route.ts';
import { PROBES, probe as probeById, SELECTABLE } from '../../probes/index.ts';
import { gateReasons } from '../../reporter/gate.ts';
import { envAssignments, replayLine, replayPrefix } from '../../reporter/replay.ts';
import { GALLERY } from '../../servers/gallery/index.ts';
import { ReferenceServer } from '../../servers/reference.ts';
import { REQUIREMENTS, requirement, type RequirementId } from '../../spec/requirements.ts';
import { TargetSession } from '../../transport/session.ts';
import { EMBEDDED_POLITENESS } from '../../config/config.ts';
import { galleryTarget, runSuite } from './suite-runner.ts';

function outcome(partial: Partial<ProbeOutcome> & { probe: string }): ProbeOutcome {
  return { ...emptyOutcome(partial.probe, partial.probe, partial.requirements ?? []), ...partial };
}

test.describe('resolveSelection', () => {
  test('no selection flag selects everything', () => {
    expect(resolveSelection({}, SELECTABLE)).toBeNull();
    expect(resolveSelection({ probes: [], requirements: [] }, SELECTABLE)).toBeNull();
  });

  test('--requirement runs the probes that aim at it and selects only it', () => {
    const s = resolveSelection({ requirements: ['reference-invalid-400'] }, SELECTABLE)!;
    const aiming = PROBES.filter((p) => p.requirements.includes('reference-invalid-400')).map((p) => p.id);
    expect(aiming.length).toBeGreaterThan(0);
    expect(s.probes).toEqual(aiming);
    expect(s.requirements).toEqual(['reference-invalid-400']);
    expect(s.label).toBe('--requirement reference-invalid-400');
  });

  test('--operation takes an operationId or "METHOD /path", with or without /api/v1', () => {
    const byId = resolveSelection({ operations: ['getMandate'] }, SELECTABLE)!;
    const byRoute = resolveSelection(
      { operations: ['GET /api/v1/mandates/{mandateReference}'] },
      SELECTABLE,
    )!;
    const short = resolveSelection({ operations: ['get /mandates/{mandateReference}'] }, SELECTABLE)!;
    const expected = PROBES.filter((p) => p.operations.includes('getMandate')).map((p) => p.id);
    expect(byId.probes).toEqual(expected);
    expect(byRoute.probes).toEqual(expected);
    expect(short.probes).toEqual(expected);
    // Every requirement its probes aim at is selected.
    expect(new Set(byId.requirements)).toEqual(
      new Set(PROBES.filter((p) => expected.includes(p.id)).flatMap((p) => p.requirements)),
    );
  });

  test('--level must selects only MUST requirements, and the probes aiming at one', () => {
    const s = resolveSelection({ levels: ['MUST'] }, SELECTABLE)!;
    expect(s.requirements.every((id) => requirement(id).level === 'MUST')).toBe(true);
    expect(s.requirements.length).toBeGreaterThan(10);
    const should = resolveSelection({ levels: ['SHOULD'] }, SELECTABLE)!;
    expect(should.requirements.every((id) => requirement(id).level === 'SHOULD')).toBe(true);
    for (const id of should.probes)
      expect(probeById(id)!.requirements.some((r) => requirement(r).level === 'SHOULD')).toBe(true);
  });

  test('--grep matches the test title and tags as Playwright does; kinds of flag narrow each other', () => {
    expect(resolveSelection({ grep: '^0-writes\\.spec' }, SELECTABLE)!.probes).toEqual(
      PROBES.filter((p) => p.access === 'write' && !p.elsewhere).map((p) => p.id),
    );
    expect(resolveSelection({ grep: '^(0-)?writes' }, SELECTABLE)!.probes).toEqual(
      PROBES.filter((p) => p.access === 'write').map((p) => p.id),
    );
    expect(resolveSelection({ grep: '@read' }, SELECTABLE)!.probes).toEqual(
      PROBES.filter((p) => p.access === 'read').map((p) => p.id),
    );
    const both = resolveSelection({ grep: '@write', operations: ['getCounterparty'] }, SELECTABLE)!;
    expect(both.probes.length).toBeGreaterThan(0);
    for (const id of both.probes) {
      expect(probeById(id)!.access).toBe('write');
      expect(probeById(id)!.operations).toContain('getCounterparty');
    }
    // Repeated flags of one kind are a union.
    expect(
      resolveSelection({ probes: ['known-counterparty', 'collections-routed'] }, SELECTABLE)!.probes,
    ).toEqual(['known-counterparty', 'collections-routed']);
  });

  test('an unknown id, level or operation, a bad regex, or a selection of nothing is one ConfigError listing the known ones', () => {
    const error = (fn: () => unknown): string => {
      try {
        fn();
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      throw new Error('no error');
    };
    const unknownReq = error(() => resolveSelection({ requirements: ['no-such-requirement'] }, SELECTABLE));
    expect(unknownReq).toMatch(
      /^unknown requirement 'no-such-requirement' \(--requirement\); known requirements: /,
    );
    for (const r of REQUIREMENTS) expect(unknownReq).toContain(r.id);
    expect(error(() => resolveSelection({ operations: ['frobnicate'] }, SELECTABLE))).toMatch(
      /unknown operation 'frobnicate' \(--operation\); known operations: getCounterparty \(GET \/api\/v1\/counterparties\/\{counterpartyReference\}\)/,
    );
    expect(error(() => resolveSelection({ probes: ['nope'] }, SELECTABLE))).toMatch(
      /unknown probe 'nope' \(--probe\)/,
    );
    expect(error(() => resolveSelection({ grep: '(' }, SELECTABLE))).toMatch(
      /--grep '\(' is not a regular expression/,
    );
    expect(error(() => resolveSelection({ grep: 'matches-no-probe-at-all' }, SELECTABLE))).toMatch(
      /no probe matches the selection --grep matches-no-probe-at-all/,
    );
    expect(error(() => parseReplayCase('no path'))).toMatch(
      /--case must be '<property name>@<fast-check path>'/,
    );
    expect(parseReplayCase('invalid reference@18:0:2')).toEqual({
      property: 'invalid reference',
      path: '18:0:2',
    });
    // A sequence of commands replays with the commands that ran (fast-check's replayPath).
    expect(parseReplayCase('sequence of requests@13:0:2~FAG:F')).toEqual({
      property: 'sequence of requests',
      path: '13:0:2',
      replayPath: 'FAG:F',
    });
    for (const bad of ['p@1~', 'p@1~FAG', 'p@1~FAG:F~x', 'p@1~F G:F'])
      expect(
        error(() => parseReplayCase(bad)),
        bad,
      ).toMatch(/--case must be/);
    expect(parseRequireExercised('MUST')).toBe('must');
    expect(parseRequireExercised('')).toBeNull();
    expect(error(() => parseRequireExercised('some'))).toMatch(/must be must or all, got 'some'/);
  });

  test("each probe's operations are what it sends to, on the reference server", async () => {
    const server = new ReferenceServer();
    const baseURL = await server.start(0);
    try {
      const run = await runSuite(galleryTarget(baseURL));
      const seen = new Map<string, Set<string>>();
      for (const ex of run.exchanges) {
        const r = route(ex.request.method, ex.request.url, basePathOf(baseURL));
        const id = r.route?.operation.operationId;
        if (id === undefined || ex.origin.probe === undefined) continue;
        seen.set(ex.origin.probe, (seen.get(ex.origin.probe) ?? new Set()).add(id));
      }
      const actual = Object.fromEntries(PROBES.map((p) => [p.id, [...(seen.get(p.id) ?? [])].sort()]));
      const listed = Object.fromEntries(PROBES.map((p) => [p.id, [...p.operations].sort()]));
      expect(listed).toEqual(actual);
    } finally {
      await server.stop();
    }
  });
});

test.describe('verdicts of a selection', () => {
  test('outside the selection: judged is reported as judged, unjudged is not selected; inside: not exercised with its reasons', () => {
    const vs = verdicts(
      [
        outcome({
          probe: 'known-counterparty',
          requirements: ['get-known-counterparty-200', 'counterparty-schema'],
          // An oracle judged no-server-error on its traffic, and found it broken once.
          judged: { 'get-known-counterparty-200': 1, 'no-server-error': 3 },
          findings: [
            {
              requirement: 'no-server-error',
              message: '500',
              expected: 'not 5xx',
              received: '500',
              judgedBy: 'server-error',
            },
          ],
        }),
      ],
      {
        selected: { requirements: ['get-known-counterparty-200', 'counterparty-schema'], label: '--probe x' },
      },
    );
    const v = (id: RequirementId) => vs.find((x) => x.id === id)!;
    expect(v('get-known-counterparty-200').status).toBe('passed');
    expect(v('no-server-error').status).toBe('failed');
    expect(v('counterparty-schema').status).toBe('not-exercised');
    expect(v('counterparty-schema').reasons.join(' ')).not.toMatch(/not selected/);
    expect(v('patch-persisted')).toMatchObject({
      status: 'not-selected',
      reasons: ['not selected: this run was limited to --probe x'],
    });
  });

  test('--require-exercised: must fails on an unexercised MUST, all on any; not selected is never required', () => {
    const reqs = [
      { id: 'a', level: 'MUST' as const, status: 'not-exercised' as const, reasons: ['read-only run'] },
      { id: 'b', level: 'SHOULD' as const, status: 'not-exercised' as const, reasons: ['no Sunset'] },
      { id: 'c', level: 'MUST' as const, status: 'not-selected' as const, reasons: ['not selected: x'] },
      { id: 'd', level: 'MUST' as const, status: 'passed' as const, reasons: [] },
    ];
    expect(gateReasons({ requirements: reqs, incomplete: [], strict: false })).toEqual([]);
    expect(
      gateReasons({ requirements: reqs, incomplete: [], strict: false, requireExercised: 'must' }),
    ).toEqual(['1 MUST requirement(s) not exercised (--require-exercised must): a (read-only run)']);
    expect(
      gateReasons({ requirements: reqs, incomplete: [], strict: false, requireExercised: 'all' }),
    ).toEqual(['2 requirement(s) not exercised (--require-exercised all): a (read-only run), b (no Sunset)']);
  });
});

test.describe('replay line', () => {
  const settings = {
    API_BASE_URL: 'https://sandbox.example.com',
    COUNTERPARTY_REF: 'ACME-0001',
    WRITABLE_COUNTERPARTY_REF: '',
    ACCOUNT_FIXTURE: '{"accountIdentifier":{"type":"IBAN","value":"NL91 ABNA"},"note":"it\'s"}',
    CONFORMANCE_SEED: '5',
    CONFORMANCE_RUNS: '15',
    CONFORMANCE_STRICT: '1',
  };
  const finding: Finding = {
    requirement: 'reference-invalid-400',
    message: 'm',
    expected: 'e',
    received: 'r',
    judgedBy: 'reference-status',
    sentBy: 'invalid-references',
    seed: 12,
    path: '18:0',
    property: 'invalid reference',
  };

  test('carries every setting but the token, quoted, the probe and the case', () => {
    const line = replayLine(
      {
        seed: 5,
        settings: { ...settings, CONFORMANCE_REPORTS_DIR: 'out' },
        command: 'npx payflow-conformance',
      },
      finding,
    )!;
    // Its reports go below the run's, in a directory named after the probe and the case.
    expect(line).toBe(
      `API_BASE_URL=https://sandbox.example.com COUNTERPARTY_REF=ACME-0001 WRITABLE_COUNTERPARTY_REF= ` +
        `ACCOUNT_FIXTURE='{"accountIdentifier":{"type":"IBAN","value":"NL91 ABNA"},"note":"it'\\''s"}' ` +
        `CONFORMANCE_SEED=12 CONFORMANCE_RUNS=15 CONFORMANCE_STRICT=1 CONFORMANCE_REPORTS_DIR=out/replay-invalid-references-18-0 ` +
        `npx payflow-conformance run --probe invalid-references --case 'invalid reference@18:0'`,
    );
    expect(line).not.toMatch(/API_TOKEN/);
    expect(envAssignments({ A: '', B: 'x y' })).toBe("A= B='x y'");
  });

  test('a finding without a case names the probe alone; recorded traffic has no replay', () => {
    const { path: _p, property: _q, seed: _s, ...plain } = finding;
    // A record of an older run: no reports directory (reports/), no command (this copy's, from here).
    expect(replayLine({ seed: 5, settings }, plain)).toMatch(
      new RegExp(
        `CONFORMANCE_SEED=5 .* CONFORMANCE_REPORTS_DIR=reports/replay-invalid-references ${replayPrefix().replace(/[.]/g, '\\.')} --probe invalid-references$`,
      ),
    );
    expect(replayLine({ seed: 5, settings }, { ...plain, harEntry: 3 })).toBeUndefined();
  });

  test('--case replays one case of one property: the same shrunk input, and no other property runs', async () => {
    const variant = GALLERY.find((v) => v.id === 'dot-accepted')!;
    const server = variant.create();
    const baseURL = await server.start(0);
    const session = new TargetSession({ politeness: EMBEDDED_POLITENESS });
    try {
      const probe = probeById('invalid-references')!;
      const target = { ...galleryTarget(baseURL), writableRef: undefined };
      const first = await runProbe(probe, target, new RunContext(session, baseURL));
      const found = first.findings.find((f) => f.requirement === 'reference-invalid-400' && f.path)!;
      expect(found.property).toBeDefined();
      const again = await runProbe(
        probe,
        { ...target, replayCase: { property: found.property!, path: found.path! } },
        new RunContext(session, baseURL),
      );
      const refound = again.findings.filter((f) => f.property === found.property);
      expect(refound.map((f) => [f.requirement, f.input])).toEqual([['reference-invalid-400', found.input]]);
      expect(again.requests).toBeLessThan(first.requests);
    } finally {
      session.close();
      await server.stop();
    }
  });
});
