/**
 * The extra headers a run sends on every request besides the token (a gateway's API key, a
 * tenant: config/headers.ts reads them from the configuration), and the secrets among them, which
 * every record, report and console line redacts as it redacts the token. The type sits here, below
 * the transport that sends them and the reports that redact them.
 */
import type { Secret } from './redact.ts';

export interface ExtraHeader {
  /** As sent, e.g. X-Api-Key. */
  name: string;
  value: string;
  /** Shown as `$<variable>` everywhere the suite writes what it sent. */
  secret: boolean;
  /** The variable it was given in (for a --header, the one it could be given in): a secret's
   * value is read from it in a curl command. */
  variable: string;
}

/** The values to redact wherever they appear (the secret headers'), each shown as its variable. */
export function headerSecrets(headers: readonly ExtraHeader[]): Secret[] {
  return headers
    .filter((h) => h.secret)
    .map((h) => ({ value: h.value, shownAs: `$${h.variable}`, everywhere: true }));
}
