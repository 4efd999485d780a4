import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { cookie, header, parseBody, parsePath } from '../../../shared/http/request';
import { idParam } from '../../../shared/http/routes/define';

const event = (body: unknown, pathParameters: Record<string, string> | null = null) =>
  ({ body, pathParameters }) as unknown as APIGatewayProxyEvent;

describe('request helpers', () => {
  it('finds headers whatever their case', () => {
    expect(header({ 'X-Api-KEY': 'v' }, 'x-api-key')).toBe('v');
    expect(header(null, 'x')).toBeUndefined();
  });

  it('reads one cookie out of several', () => {
    expect(cookie({ Cookie: 'a=1; session=abc%3D; b=2' }, 'session')).toBe('abc=');
    expect(cookie({ Cookie: 'sessionx=1' }, 'session')).toBeUndefined();
  });

  it('describes the first validation issue in one sentence', () => {
    const schema = v.object({ name: v.string(), count: v.optional(v.number()), tag: v.pipe(v.string(), v.minLength(2, 'tag is too short')) });
    expect(() => parseBody(schema, event({}))).toThrow(/^name is required$/);
    expect(() => parseBody(schema, event({ name: 1 }))).toThrow(/^name must be a string$/);
    expect(() => parseBody(schema, event({ name: 'a', count: 'x', tag: 'ab' }))).toThrow(/^count must be a number$/);
    // null is no value: a required field given null is missing; an optional one has the wrong type.
    expect(() => parseBody(schema, event({ name: null, tag: 'ab' }))).toThrow(/^name is required$/);
    expect(() => parseBody(schema, event({ name: 'a', count: null, tag: 'ab' }))).toThrow(/^count must be a number$/);
    const nested = v.object({ settings: v.optional(v.object({ label: v.pipe(v.string(), v.trim()), note: v.optional(v.string()) })) });
    expect(() => parseBody(nested, event({ settings: { label: null } }))).toThrow(/^settings\.label is required$/);
    expect(() => parseBody(nested, event({ settings: { label: 'x', note: null } }))).toThrow(/^settings\.note must be a string$/);
    expect(() => parseBody(schema, event({ name: 'a', tag: 'a' }))).toThrow(/^tag is too short$/);
    expect(() => parseBody(schema, event([]))).toThrow(/^Request body must be a JSON object$/);
    expect(parseBody(schema, event({ name: 'a', tag: 'ab' }))).toEqual({ name: 'a', tag: 'ab' });
  });

  it('accepts only positive integer path ids; anything else is a 404 with the route message', () => {
    const path = v.object({ id: idParam('Thing not found') });
    expect(parsePath(path, { id: '12' })).toEqual({ id: 12 });
    for (const id of ['0', '-1', 'abc', '1e3', '99999999999999999', '', '9007199254740993']) {
      expect(() => parsePath(path, { id }), id).toThrow(expect.objectContaining({ kind: 'not_found', message: 'Thing not found' }));
    }
    expect(() => parsePath(path, null)).toThrow(expect.objectContaining({ kind: 'not_found', message: 'Thing not found' }));
  });

  it('never finds Object.prototype members in request maps', () => {
    expect(header({ constructor: 'x' }, 'toString')).toBeUndefined();
    expect(parsePath(v.object({ id: v.string() }), { id: 'constructor' })).toEqual({ id: 'constructor' });
    expect(() => parsePath(v.object({ constructor: idParam('Gone') }), {})).toThrow('Gone');
  });
});
