/** How the bearer token is kept out of every record: it is shown as $API_TOKEN. */

export const REDACTED_TOKEN = '$API_TOKEN';

/** `text` with the token replaced by $API_TOKEN. */
export function redact(text: string, token: string): string {
  return token === '' ? text : text.split(token).join(REDACTED_TOKEN);
}
