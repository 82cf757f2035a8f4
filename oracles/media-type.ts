/**
 * JSON bodies. Requirements: json-well-formed, response-json-media-type.
 *
 * Rests on interface.md §1 "The interface follows OpenAPI 3.1 and is REST over HTTP with JSON
 * bodies." and RFC 8259 §2 (the JSON grammar).
 *
 * json-well-formed applies to every answered exchange below the interface's prefix whose body
 * is labelled with a JSON media type (application/json or +json): the body parses as JSON (at any
 * depth: one nested too deep to be read as a value, exchange/json-body.ts, parsed all the same).
 * response-json-media-type applies to 2xx answers with a body of the twelve operations other
 * than the counterparty's (whose media type counterparty-json judges at MUST level): the
 * document shows none of their payloads, so a JSON media type is expected at SHOULD level. A
 * body of only whitespace counts as no body for both (as a 204's or an empty 200's).
 */
import { describeRequest, describeResponse } from '../exchange/describe.ts';
import { is2xx } from '../exchange/exchange.ts';
import { isJsonContentType } from './counterparty-response.ts';
import { held, violated, type ExchangeOracle, type Judgement } from './types.ts';
import { operationIds } from '../spec/operations.ts';

/** The operations that answer with a counterparty (spec/operations.ts). */
const COUNTERPARTY_OPERATIONS = new Set(operationIds({ resource: 'counterparty' }));

/**
 * A body that is more than white space (what trim() removes, found without copying the text: a
 * body of megabytes of trailing white space costs nothing).
 */
const hasContent = (text: string): boolean => /\S/.test(text);

export const MEDIA_TYPE_ORACLE: ExchangeOracle = {
  id: 'media-type',
  kind: 'exchange',
  requirements: ['json-well-formed', 'response-json-media-type'],
  unexercised: {
    'json-well-formed': 'no answer carried a body labelled as JSON',
    'response-json-media-type': 'no operation other than the counterparty answered with success and a body',
  },
  judge({ exchange: ex, route, inInterface }) {
    if (!inInterface || ex.status === 0) return [];
    const out: Judgement[] = [];
    const type = ex.headers['content-type'];
    if (isJsonContentType(type) && hasContent(ex.text)) {
      out.push(
        // JSON nested too deep to be read as a value (exchange/json-body.ts) parsed all the same.
        ex.body !== undefined || ex.tooDeep !== undefined
          ? held('json-well-formed')
          : violated({
              requirement: 'json-well-formed',
              exchange: ex,
              message: `${describeRequest(ex)}: the body is labelled ${type} but is not well-formed JSON`,
              expected: 'a body that parses as JSON (RFC 8259)',
              received: describeResponse(ex),
            }),
      );
    }
    if (
      route?.kind === 'operation' &&
      !COUNTERPARTY_OPERATIONS.has(route.operation.operationId) &&
      is2xx(ex.status) &&
      hasContent(ex.text)
    ) {
      out.push(
        isJsonContentType(type)
          ? held('response-json-media-type')
          : violated({
              requirement: 'response-json-media-type',
              exchange: ex,
              message: `${describeRequest(ex)} answered ${ex.status} with a body that is not labelled as JSON`,
              expected:
                'Content-Type: application/json (or a +json type): the interface has JSON bodies (§1)',
              received: type ? `Content-Type: ${type}` : 'no Content-Type header',
            }),
      );
    }
    return out;
  },
};
