import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { CustomFields } from '../../../shared/domain/leads/custom-fields';
import { CompanyImportRow, CsvMapping, PeopleImportRowFields } from '../../../shared/domain/leads/import-schemas';
import { CompanyLeadsQuery, PeopleLeadsQuery } from '../../../shared/domain/leads/list-query';
import { CompanySearchFilters, PeopleSearchFilters } from '../../../shared/domain/leads/search-filters';

/**
 * The lead schemas are meant to describe requests in OpenAPI: converted as request (input) types,
 * with the checks JSON Schema cannot say left out.
 */
const jsonSchema = (schema: v.GenericSchema) =>
  toJsonSchema(schema, { typeMode: 'input', errorMode: 'ignore' }) as {
    type?: string;
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
    additionalProperties?: unknown;
  };

describe('lead schemas as JSON Schema', () => {
  it('describe the list-leads query of each list type, filters included', () => {
    const people = jsonSchema(PeopleLeadsQuery);
    expect(people.additionalProperties).toBe(false);
    expect(people.properties?.page).toMatchObject({ type: 'string', default: '1', description: 'An integer from 1 to 1000000; default 1.' });
    expect(people.properties?.page_size).toMatchObject({ type: 'string', default: '25' });
    expect(people.properties?.sort_field).toMatchObject({ enum: ['', 'id', 'first_name', 'last_name', 'job_title', 'location', 'created_at'] });
    expect(people.properties?.job_title).toEqual({ type: 'array', items: { type: 'string', maxLength: 200 } });
    expect(Object.keys(people.properties ?? {})).toContain('company');
    expect(Object.keys(jsonSchema(CompanyLeadsQuery).properties ?? {})).toEqual([
      'page',
      'page_size',
      'sort_field',
      'sort_direction',
      'name',
      'website_url',
      'network_url',
      'industry',
      'location',
      'amount_of_employees',
      'revenue',
      'company_name',
      'company_size',
      'company_industry',
      'company_location',
    ]);
  });

  it('describe the search filters of each search type', () => {
    const people = jsonSchema(PeopleSearchFilters);
    expect(people.additionalProperties).toBe(false);
    const text = { type: 'string', maxLength: 200 };
    const values = { anyOf: [text, { type: 'array', items: text, maxItems: 50 }] };
    expect(people.properties?.job_title).toEqual({
      anyOf: [
        {
          anyOf: [
            ...values.anyOf,
            { type: 'object', properties: { must: values, doesnt: values }, required: [], additionalProperties: false },
          ],
        },
        { type: 'null' },
      ],
    });
    expect(Object.keys(jsonSchema(CompanySearchFilters).properties ?? {})).toEqual([
      'name',
      'industry',
      'location',
      'company_size',
      'revenue',
      'keywords',
      'company_name',
      'amount_of_employees',
    ]);
  });

  it('describe an import row of each list type, a CSV mapping and custom fields', () => {
    // The documented shape of a person row (its validation runs in stages: PeopleImportRow).
    const person = jsonSchema(PeopleImportRowFields);
    expect(person.required).toEqual(['first_name', 'last_name']);
    expect(person.properties?.custom_fields).toEqual({ anyOf: [{ type: 'object', description: 'Your own fields of the lead, shown back as sent.' }, { type: 'null' }] });
    expect(person.properties?.email).toEqual({ anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] });
    const company = jsonSchema(CompanyImportRow);
    expect(company.required).toEqual([]);
    expect(Object.keys(company.properties ?? {})).toEqual([
      'name',
      'website_url',
      'network_url',
      'logo_url',
      'industry',
      'location',
      'amount_of_employees',
      'size',
      'revenue',
    ]);
    expect(jsonSchema(CsvMapping)).toMatchObject({ type: 'object' });
    expect(jsonSchema(CustomFields)).toMatchObject({ type: 'object' });
  });
});
