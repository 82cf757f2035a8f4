/**
 * What the run restores at its end (engine/baseline.ts), by global teardown, in Playwright's
 * runner, while the target (the embedded server too) is still up:
 *   - a write probe whose process died before its restore (a Playwright worker SIGKILLed, or
 *     killed by the kernel's OOM killer): it finds the probe's marker, records the run as
 *     interrupted (a dead worker is an interruption: its requirements are unjudged), and puts the
 *     counterparty's details back to the run's original, kept in the run-state directory since
 *     before the run's first PATCH of it (recoverDeadWriters);
 *   - the changes the write probes handed on to the end of the run: the same restore, once per
 *     counterparty (restoreHandedOn).
 */
import {
  clearWriter,
  deadWriterInterruption,
  deadWriters,
  type RestoreRecord,
  storedBaseline,
} from '../engine/probe-api.ts';
import { clearHandedOn, handedOn } from '../engine/baseline.ts';
import { describeResponse } from '../exchange/describe.ts';
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { headerSecrets } from '../exchange/extra-headers.ts';
import { redactText, type SecretInput } from '../exchange/redactors.ts';
import { ExchangeLog } from '../exchange/log.ts';
import { BodyBudget, KEPT_WHOLE_BYTES } from '../exchange/kept.ts';
import { HttpClient } from '../transport/client.ts';
import type { TargetSession } from '../transport/session.ts';
import { requestStop } from '../transport/stop.ts';
import type { ExtraHeader } from '../exchange/extra-headers.ts';
import { restoreRequest } from './write-lane.ts';

export { RECOVERY_ENV } from '../engine/baseline.ts';
export { BodyBudget, ExchangeLog };

/**
 * The share of a run's budget of kept bodies the end's restores keep: 8 KiB whole (a
 * counterparty's answer is some 2 KiB), then 4 KiB of heads, so that their text stays under the
 * 128 KiB a string of the environment may have even where every character is JSON-escaped.
 */
export const END_BODY_SHARE = (8 * 1024) / KEPT_WHOLE_BYTES;

/** The run's secrets, as a check's attachments are redacted with them (suite/define.ts). */
const secretsOf = (target: RecoveryTarget): SecretInput[] => [
  target.token,
  ...headerSecrets(target.extraHeaders ?? []),
];

/**
 * The exchanges the restores at the end of a run sent, as global teardown hands them to the
 * reporter (END_EXCHANGES_ENV): JSON, redacted with the run's secrets.
 */
export function endExchangesText(exchanges: readonly Exchange[], target: RecoveryTarget): string {
  return redactText(JSON.stringify(exchanges), secretsOf(target));
}

/**
 * What a restore at the end of a run did, as one console line, redacted (its detail may quote the
 * target's answer), for a run that has no conformance reporter to say it (a shard).
 */
export function restoreLine(r: RestoreRecord, target: RecoveryTarget): string {
  const done = r.status === 'restored' ? 'restored' : 'NOT restored';
  return redactText(`Writable counterparty ${done}: ${r.detail}`, secretsOf(target));
}

export interface RecoveryTarget {
  baseURL: string;
  token: string;
  extraHeaders?: readonly ExtraHeader[];
}

/** Why a restore is sent at the end of the run: a writer that died, or changes handed on. */
interface EndRestore {
  ref: string;
  /** The probe that died, or that handed the changes on last. */
  probe: string;
  /** Words for the record: "after X died ..." or "at the end of the run, after X". */
  after: string;
  afterInterrupt: boolean;
}

/**
 * Sends the restore of `r.ref` to the run's baseline through `session`, unjudged (housekeeping
 * outside every probe), recorded in `log` (the run's exchanges.har lists it), and says what was
 * done. On success the counterparty is off the handed-on list: nothing is restored twice.
 */
async function restoreAtEnd(
  dir: string,
  target: RecoveryTarget,
  session: TargetSession,
  r: EndRestore,
  log: ExchangeLog,
): Promise<RestoreRecord> {
  const done = (status: RestoreRecord['status'], fields: string[], detail: string): RestoreRecord => {
    if (status === 'restored') clearHandedOn(dir, r.ref);
    return { counterparty: r.ref, fields, status, detail, afterInterrupt: r.afterInterrupt };
  };
  const baseline = storedBaseline(dir, r.ref);
  const request = baseline && restoreRequest(r.ref, baseline);
  if (request === undefined)
    return done(
      baseline ? 'restored' : 'failed',
      [],
      baseline
        ? `${r.ref} had no detail field to put back when the run began`
        : `could not restore ${r.ref} ${r.after}: the run's original state of it was not kept`,
    );
  const fields = Object.keys((request.json as { counterpartyDetails: object }).counterpartyDetails);
  const http = new HttpClient(session, {
    baseURL: target.baseURL,
    token: target.token,
    allowWrites: true,
    // Not judged: a restore of the run's original state, outside every probe.
    record: (ex) => log.append(ex),
    probe: 'recovery',
    ...(target.extraHeaders ? { extraHeaders: target.extraHeaders } : {}),
  });
  try {
    const ex = await http.send(request);
    return done(
      is2xx(ex.status) ? 'restored' : 'failed',
      fields,
      is2xx(ex.status)
        ? `restored the run's original ${fields.join(', ')} of ${r.ref} ${r.after}`
        : `could not restore the original details of ${r.ref} ${r.after}: ${describeResponse(ex)}`,
    );
  } catch (error) {
    return done(
      'failed',
      fields,
      `could not restore the original details of ${r.ref} ${r.after}: ${(error as Error).message.split('\n')[0]}`,
    );
  }
}

/**
 * Restores every writable counterparty whose writer died, from the run's baseline, through
 * `session` (whose run is then interrupted: the restore is housekeeping), recording what it sends
 * in `log`. Returns what was done.
 */
export async function recoverDeadWriters(
  dir: string,
  target: RecoveryTarget,
  session: TargetSession,
  log: ExchangeLog = new ExchangeLog(),
): Promise<RestoreRecord[]> {
  const records: RestoreRecord[] = [];
  for (const writer of deadWriters(dir)) {
    requestStop(dir, deadWriterInterruption(writer));
    records.push(
      await restoreAtEnd(
        dir,
        target,
        session,
        {
          ref: writer.ref,
          probe: writer.probe,
          after: `after ${writer.probe} died in a Playwright worker before its restore`,
          afterInterrupt: true,
        },
        log,
      ),
    );
    clearWriter(dir, writer);
  }
  return records;
}

/**
 * Restores, once, every writable counterparty the write probes left changed for the end of the
 * run (engine/baseline.ts handOn): the run's original details, from its baseline, through
 * `session`. `interrupted`: the run was stopped, and the restore is the housekeeping after it.
 * Run by global teardown after recoverDeadWriters, which takes the counterparties it restores
 * off the list. Records what it sends in `log`. Returns what was done.
 */
export async function restoreHandedOn(
  dir: string,
  target: RecoveryTarget,
  session: TargetSession,
  interrupted: boolean,
  log: ExchangeLog = new ExchangeLog(),
): Promise<RestoreRecord[]> {
  const records: RestoreRecord[] = [];
  for (const h of handedOn(dir))
    records.push(
      await restoreAtEnd(
        dir,
        target,
        session,
        {
          ref: h.ref,
          probe: h.probe,
          after: `at the end of the run (changed last by ${h.probe})`,
          afterInterrupt: interrupted,
        },
        log,
      ),
    );
  return records;
}
