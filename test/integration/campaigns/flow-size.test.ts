import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FLOW_TEXT_BYTES } from '../../../shared/domain/campaigns/flow-content';
import { LAMBDA_RESULT_MAX_BYTES } from '../../../shared/http/answer-size';
import type { TestStack } from '../../support/test-stack';
import { type Workspace, leadsStack } from '../leads/helpers';
import { inLambdaResult } from '../../support/formats';

interface StepAnswer {
  step: { id: number };
  campaign: { steps: { id: number }[] };
}


/**
 * A campaign's detail is one answer: its steps' texts must fit Lambda's 6 MB result. Email steps
 * with both bodies at their 50,000-character limit in CJK text take ~300 KB each in it.
 */
describe("a campaign's step texts stay within what one answer can hold", () => {
  let stack: TestStack;
  let alice: Workspace;
  const wide = '界'.repeat(50_000);
  const email = (body: string) => ({ step_type: 'EMAIL', subject_line: 'Hi', message_template: body, message_template_b: body });

  beforeAll(async () => {
    ({ stack, alice } = await leadsStack());
  });
  afterAll(async () => stack?.stop());

  const call = <T>(method: string, path: string, body?: unknown) => stack.call<T>(method, path, { apiKey: alice.key, ...(body === undefined ? {} : { body }) });

  it('adds steps up to 4,000,000 bytes of text (the first counted twice), refuses the one past it, and the campaign stays readable and editable', async () => {
    expect(MAX_FLOW_TEXT_BYTES).toBe(4_000_000);
    const cid = (await call<{ campaign: { id: number } }>('POST', '/public/campaigns/', { name: 'Long emails' })).body.campaign.id;
    const ids: number[] = [];
    for (let n = 1; n <= 12; n += 1) {
      const added = await call<StepAnswer>('POST', `/public/campaigns/${cid}/steps/`, email(wide));
      expect(added.status, added.text.slice(0, 200)).toBe(201);
      ids.push(added.body.step.id);
    }
    const refused = await call('POST', `/public/campaigns/${cid}/steps/`, email(wide));
    // 14 steps' worth: 12, the first again, and the new one, each 300,025 bytes.
    expect([refused.status, refused.body]).toEqual([
      400,
      { error: "The campaign's steps would hold 4200350 bytes of text, more than the 4000000 a campaign may (its detail is one answer); shorten or remove templates" },
    ]);
    const detail = await call<{ campaign: { steps: { id: number }[] } }>('GET', `/public/campaigns/${cid}/`);
    expect([detail.status, detail.body.campaign.steps.map((step) => step.id)]).toEqual([200, ids]);
    expect(inLambdaResult(detail.text)).toBeLessThan(LAMBDA_RESULT_MAX_BYTES);
    // A step may not grow past it, and may shrink; the room it frees takes another step.
    const grow = await call('PATCH', `/public/campaigns/${cid}/steps/${ids[1]}/`, { subject_line: 'x'.repeat(500) });
    expect(grow.status).toBe(200);
    const shrink = await call('PATCH', `/public/campaigns/${cid}/steps/${ids[2]}/`, { message_template: 'Short', message_template_b: '' });
    expect(shrink.status, shrink.text.slice(0, 200)).toBe(200);
    const more = await call<StepAnswer>('POST', `/public/campaigns/${cid}/steps/`, email(wide));
    expect(more.status, more.text.slice(0, 200)).toBe(201);
    const tooMuch = await call('PATCH', `/public/campaigns/${cid}/steps/${ids[2]}/`, { message_template: wide, message_template_b: wide });
    expect([tooMuch.status, tooMuch.body]).toEqual([
      400,
      { error: "The campaign's steps would hold 4200848 bytes of text, more than the 4000000 a campaign may (its detail is one answer); shorten or remove templates" },
    ]);
  });
});
