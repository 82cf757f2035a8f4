/**
 * What the run does, at its end, for a write probe whose process died before its restore (a
 * Playwright worker SIGKILLed, or killed by the kernel's OOM killer): it finds the probe's marker
 * (engine/baseline.ts), records the run as interrupted (a dead worker is an interruption: its
 * requirements are unjudged), and puts the counterparty's details back to the run's original,
 * kept in the run-state directory since before the run's first PATCH of it. Run by global
 * teardown, in Playwright's runner, while the target (the embedded server too) is still up.
 */
import {
  clearWriter,
  deadWriterInterruption,
  deadWriters,
  type RestoreRecord,
  storedBaseline,
} from '../engine/probe-api.ts';
import { describeResponse } from '../exchange/describe.ts';
import { is2xx } from '../exchange/exchange.ts';
import { ExchangeLog } from '../exchange/log.ts';
import { HttpClient } from '../transport/client.ts';
import type { TargetSession } from '../transport/session.ts';
import { requestStop } from '../transport/stop.ts';
import type { ExtraHeader } from '../exchange/extra-headers.ts';
import { restoreRequest } from './write-lane.ts';

export { RECOVERY_ENV } from '../engine/baseline.ts';

export interface RecoveryTarget {
  baseURL: string;
  token: string;
  extraHeaders?: readonly ExtraHeader[];
}

/**
 * Restores every writable counterparty whose writer died, from the run's baseline, through
 * `session` (whose run is then interrupted: the restore is housekeeping). Returns what was done.
 */
export async function recoverDeadWriters(
  dir: string,
  target: RecoveryTarget,
  session: TargetSession,
): Promise<RestoreRecord[]> {
  const records: RestoreRecord[] = [];
  for (const writer of deadWriters(dir)) {
    requestStop(dir, deadWriterInterruption(writer));
    const record = (status: RestoreRecord['status'], fields: string[], detail: string): void => {
      records.push({ counterparty: writer.ref, fields, status, detail, afterInterrupt: true });
    };
    const baseline = storedBaseline(dir, writer.ref);
    const request = baseline && restoreRequest(writer.ref, baseline);
    if (request === undefined) {
      record(
        baseline ? 'restored' : 'failed',
        [],
        baseline
          ? `${writer.ref} had no detail field to put back when the run began`
          : `could not restore ${writer.ref} after ${writer.probe} died: the run's original state of it was not kept`,
      );
    } else {
      const fields = Object.keys((request.json as { counterpartyDetails: object }).counterpartyDetails);
      const log = new ExchangeLog();
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
        record(
          is2xx(ex.status) ? 'restored' : 'failed',
          fields,
          is2xx(ex.status)
            ? `restored the run's original ${fields.join(', ')} of ${writer.ref} after ${writer.probe} died in a Playwright worker before its restore`
            : `could not restore the original details of ${writer.ref} after ${writer.probe} died: ${describeResponse(ex)}`,
        );
      } catch (error) {
        record(
          'failed',
          fields,
          `could not restore the original details of ${writer.ref} after ${writer.probe} died: ${(error as Error).message.split('\n')[0]}`,
        );
      }
    }
    clearWriter(dir, writer);
  }
  return records;
}
