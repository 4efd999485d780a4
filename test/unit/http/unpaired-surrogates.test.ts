import { describe, expect, it } from 'vitest';
import { holdsUnpairedSurrogate, maySpellSurrogates, replaceUnpairedSurrogates } from '../../../shared/http/unpaired-surrogates';

describe('unpaired surrogates in a parsed JSON body', () => {
  it('finds one in a string or a key at any depth; a pair (an emoji) and U+FFFF are text', () => {
    expect(holdsUnpairedSurrogate(JSON.parse('{"a": ["x", {"b": "lone \\ud800"}]}'))).toBe(true);
    expect(holdsUnpairedSurrogate(JSON.parse('{"a\\udfff": 1}'))).toBe(true);
    expect(holdsUnpairedSurrogate(JSON.parse('"\\udc00\\ud800"'))).toBe(true);
    expect(holdsUnpairedSurrogate(JSON.parse('{"a": "\\ud83d\\ude00 \\uffff 𝒜", "n": 1, "z": null, "t": true}'))).toBe(false);
    expect(holdsUnpairedSurrogate(null)).toBe(false);
  });

  it('tells the raw bodies that may spell one (an escape or a surrogate code unit) from those that cannot', () => {
    expect(['{"a": "\\ud800"}', '{"a": "\\uDFFF"}', '{"a": "😀"}'].map(maySpellSurrogates)).toEqual([true, true, true]);
    expect(['{"a": "\\u00e9 plain"}', '{"a": "café"}', '{"a": 1}'].map(maySpellSurrogates)).toEqual([false, false, false]);
  });

  it('replaces each with U+FFFD and leaves pairs alone', () => {
    expect(replaceUnpairedSurrogates(JSON.parse('{"a\\udfff": ["\\ud800x\\ud83d\\ude00", 2]}'))).toEqual({ 'a\uFFFD': ['\uFFFDx😀', 2] });
  });
});

describe('unpaired surrogates in a deep body', () => {
  it('walks a body 100,000 levels deep without running out of call stack', () => {
    const depth = 100_000;
    const deep = JSON.parse(`${'['.repeat(depth)}"\\ud800"${']'.repeat(depth)}`);
    expect(holdsUnpairedSurrogate(deep)).toBe(true);
    expect(holdsUnpairedSurrogate(JSON.parse(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`))).toBe(false);
    let inner: unknown = replaceUnpairedSurrogates(deep);
    for (let level = 0; level < depth; level += 1) inner = (inner as unknown[])[0];
    expect(inner).toBe('\uFFFD');
  });
});
