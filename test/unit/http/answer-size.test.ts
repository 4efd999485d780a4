import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { ANSWER_TOO_LARGE, LAMBDA_RESULT_MAX_BYTES, answerSizeGuard, resultBytes } from '../../../shared/http/answer-size';
import { json } from '../../../shared/http/responses';
import { prospectRoutes } from '../../../shared/http/routes/prospects';

/** A JSON answer whose Lambda result is exactly `bytes` long (CJK text: 3 bytes a character). */
function answerOf(bytes: number): APIGatewayProxyResult {
  const empty = resultBytes(json(200, { text: '' }));
  const wide = Math.floor((bytes - empty) / 3);
  const answer = json(200, { text: `${'界'.repeat(wide)}${'a'.repeat(bytes - empty - wide * 3)}` });
  expect(resultBytes(answer)).toBe(bytes);
  return answer;
}

async function guarded(method: string, response: APIGatewayProxyResult, resource = '/things') {
  const errors: unknown[][] = [];
  const request = { event: { httpMethod: method, resource } as APIGatewayProxyEvent, response };
  const asksOnly = (event: APIGatewayProxyEvent) => event.resource === '/search';
  await answerSizeGuard({ error: (...args: unknown[]) => errors.push(args) } as never, asksOnly).after?.(request as never);
  return { response: request.response, errors };
}

describe("an answer Lambda could not return (over 6 MiB as the function's result)", () => {
  it('passes up to the limit untouched', async () => {
    const answer = answerOf(LAMBDA_RESULT_MAX_BYTES);
    const { response, errors } = await guarded('GET', answer);
    expect([response === answer, errors]).toEqual([true, []]);
  });

  it('is a 400 for a read: asking for less succeeds', async () => {
    const { response, errors } = await guarded('GET', answerOf(LAMBDA_RESULT_MAX_BYTES + 1));
    expect([response.statusCode, JSON.parse(response.body)]).toEqual([400, ANSWER_TOO_LARGE]);
    expect(ANSWER_TOO_LARGE).toEqual({
      error: 'Answer too large',
      message: 'The answer would be over 6 MB, more than the API can send at once; ask for less (a smaller page_size where the route takes one)',
    });
    expect(errors).toEqual([]);
  });

  it('is a 400 for a POST that only asks (a search)', async () => {
    const { response, errors } = await guarded('POST', answerOf(LAMBDA_RESULT_MAX_BYTES + 1), '/search');
    expect([response.statusCode, JSON.parse(response.body), errors]).toEqual([400, ANSWER_TOO_LARGE, []]);
  });

  it('is a logged 500 for a change (it was made): what API Gateway’s 502 would have been', async () => {
    const { response, errors } = await guarded('POST', answerOf(LAMBDA_RESULT_MAX_BYTES + 1));
    expect([response.statusCode, JSON.parse(response.body)]).toEqual([500, { error: 'Internal server error' }]);
    expect(errors).toEqual([["Answer over Lambda's result limit after a change was made", { bytes: LAMBDA_RESULT_MAX_BYTES + 1, route: 'POST /things' }]]);
  });
});

describe('the prospect search only asks when it searches the workspace', () => {
  it('a DIRECTORY search (the default) spends a search of the month, so its answer too large is not a 400 to ask again', () => {
    const asksOnly = prospectRoutes.searchProspects.asksOnly;
    expect([{ source: 'WORKSPACE' }, { source: 'DIRECTORY' }, {}, null, 'WORKSPACE'].map((body) => asksOnly?.(body))).toEqual([true, false, false, false, false]);
  });
});
