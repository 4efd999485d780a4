import { describe, expect, it } from 'vitest';
import { SQS_BATCH_BYTES, SQS_BATCH_ENTRIES, sqsBatches, sqsJson } from '../../../shared/messaging/sqs';

const sizes = (batches: string[][]) => batches.map((batch) => batch.map((text) => text.length));

describe('SendMessageBatch groups', () => {
  it('are at most 10 entries and 1 MiB together, in order', () => {
    expect([SQS_BATCH_ENTRIES, SQS_BATCH_BYTES]).toEqual([10, 1_048_576]);
    expect(sizes(sqsBatches(Array.from({ length: 23 }, () => 'a')))).toEqual([Array(10).fill(1), Array(10).fill(1), [1, 1, 1]]);
    const big = 'b'.repeat(400_000);
    expect(sizes(sqsBatches([big, big, big, 'c', big]))).toEqual([[400_000, 400_000], [400_000, 1, 400_000]]);
  });

  it('fill a batch to exactly 1 MiB, and a message of 1 MiB goes alone', () => {
    const half = 'h'.repeat(SQS_BATCH_BYTES / 2);
    expect(sizes(sqsBatches([half, half, 'x']))).toEqual([[524_288, 524_288], [1]]);
    const whole = 'w'.repeat(SQS_BATCH_BYTES);
    expect(sizes(sqsBatches(['x', whole, 'y']))).toEqual([[1], [1_048_576], [1]]);
  });

  it('count bytes, not characters: 2 × 200,000 CJK characters (600 KB each) go one a batch', () => {
    const wide = '界'.repeat(200_000);
    expect(sqsBatches([wide, wide]).map((batch) => batch.length)).toEqual([1, 1]);
  });

  it('of nothing are none', () => {
    expect(sqsBatches([])).toEqual([]);
  });
});

describe('message bodies (sqsJson)', () => {
  it('escape what SQS (U+FFFE, U+FFFF) or its emulator (above U+FFFF) refuse, and parse back to the same value', () => {
    const value = { text: 'ok 👍 \uffff \ufffe é 界 \u2028', 'key 𝒜': 1 };
    const body = sqsJson(value);
    expect(body).toBe('{"text":"ok \\ud83d\\udc4d \\uffff \\ufffe é 界 \u2028","key \\ud835\\udc9c":1}');
    expect(JSON.parse(body)).toEqual(value);
    // Nothing outside what SQS and the emulator take: #x9, #xA, #xD, #x20–#xD7FF, #xE000–#xFFFD.
    expect(/^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD]*$/.test(body)).toBe(true);
  });

  it('leave plain JSON as JSON.stringify writes it', () => {
    const value = { a: [1, 'two', null], b: 'line\nbreak "quoted"' };
    expect(sqsJson(value)).toBe(JSON.stringify(value));
  });
});
