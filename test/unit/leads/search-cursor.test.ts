import { describe, expect, it } from 'vitest';
import { decodeSearchCursor, encodeSearchCursor } from '../../../shared/domain/leads/search-cursor';
import { parseSearchFilters } from '../../../shared/domain/leads/search-filters';

const scope = { workspaceId: 8, searchType: 'PEOPLE' as const, filters: parseSearchFilters('PEOPLE', { job_title: 'CTO' }) };

// Clients hold on to cursors: this spelling must keep being accepted, or a version must say otherwise.
describe('workspace search cursor', () => {
  it('is base64url("1.<after>.<check>") and gives back its position', () => {
    const cursor = encodeSearchCursor(scope, 45);
    expect(cursor).toBe('MS40NS4wZTZlZTE5ZTQyZDBjNjQ3NDQ5NTdlYzNmMGJlMzNlYw');
    expect(Buffer.from(cursor, 'base64url').toString('utf8')).toMatch(/^1\.45\.[0-9a-f]{32}$/);
    expect(decodeSearchCursor(scope, cursor)).toBe(45);
    expect(decodeSearchCursor(scope, encodeSearchCursor(scope, 0))).toBe(0);
    expect(decodeSearchCursor(scope, encodeSearchCursor(scope, 2 ** 53 - 1))).toBe(2 ** 53 - 1);
  });

  it('belongs to one workspace, search type and filter set', () => {
    const cursor = encodeSearchCursor(scope, 45);
    expect(decodeSearchCursor({ ...scope, workspaceId: 9 }, cursor)).toBeUndefined();
    expect(decodeSearchCursor({ ...scope, searchType: 'COMPANY' }, cursor)).toBeUndefined();
    expect(decodeSearchCursor({ ...scope, filters: {} }, cursor)).toBeUndefined();
    expect(decodeSearchCursor({ ...scope, filters: parseSearchFilters('PEOPLE', { job_title: { doesnt: 'CTO' } }) }, cursor)).toBeUndefined();
    expect(decodeSearchCursor({ ...scope, filters: parseSearchFilters('PEOPLE', { job_title: 'CTO', location: 'Berlin' }) }, cursor)).toBeUndefined();
  });

  it('fits the same filters however they are written: case, accents, order, repeats, aliases', () => {
    const cursor = encodeSearchCursor(
      { ...scope, filters: parseSearchFilters('PEOPLE', { job_title: ['CTO', 'Directeur Général'], location: 'Berlin' }) },
      45,
    );
    const same = parseSearchFilters('PEOPLE', { prospect_location: 'berlin', current_title: ['directeur general', 'cto', 'CTO'] });
    expect(decodeSearchCursor({ ...scope, filters: same }, cursor)).toBe(45);
  });

  it('refuses anything it did not write', () => {
    const cursor = encodeSearchCursor(scope, 45);
    const text = Buffer.from(cursor, 'base64url').toString('utf8');
    const reencode = (value: string) => Buffer.from(value, 'utf8').toString('base64url');
    for (const bad of [
      '',
      'not a cursor!',
      `${cursor}=`,
      reencode(text.replace('1.45.', '1.46.')),
      reencode(text.replace('1.45.', '2.45.')),
      reencode(text.replace('1.45.', '1.045.')),
      reencode(`${text}0`),
      reencode(text.toUpperCase()),
      reencode('1.99999999999999999.0123456789abcdef0123456789abcdef'),
      `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`,
      'A'.repeat(201),
    ]) {
      expect(decodeSearchCursor(scope, bad), bad).toBeUndefined();
    }
  });
});
