import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../../infra/openapi';
import { PROSPECT_STATUSES } from '../../../shared/domain/campaigns/campaign';

/**
 * What the OpenAPI document says of fields whose route reads them itself (to answer the contract's
 * own 400 texts): it documents what that reader accepts, not the `unknown` the route schema takes.
 */
type Json = Record<string, any>;
const document = buildOpenApiDocument() as Json;
const operation = (path: string, method: string): Json => document.paths[`/api/v1${path}`][method];
const jsonBody = (path: string, method: string): Json => operation(path, method).requestBody.content['application/json'].schema;
const queryParameter = (path: string, name: string): Json => operation(path, 'get').parameters.find((p: Json) => p.name === name && p.in === 'query');

describe('the OpenAPI document', () => {
  it('types the fields of bodies read by their handlers, and names what is required', () => {
    const add = jsonBody('/public/lead-lists/{id}/add-to-campaign', 'post');
    expect(add.required).toEqual(['campaign']);
    expect(add.properties.campaign).toMatchObject({ type: 'integer', minimum: 1 });
    expect(add.properties.prospect_ids).toMatchObject({ type: 'array', items: { type: 'integer', minimum: 1 }, maxItems: 1000, default: [] });
    expect(add.properties.prospects_per_company).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
    expect(add.properties.sort_direction).toMatchObject({ enum: ['asc', 'desc'], default: 'asc' });
    expect(add.properties.activate).toMatchObject({ type: 'boolean', default: false });

    const enrich = jsonBody('/public/lead-lists/{id}/enrichment', 'post');
    expect(enrich.properties.enrichment_type).toMatchObject({ enum: ['FIND_EMAIL', 'FIND_EMAIL_WATERFALL', 'FIND_PHONE'], default: 'FIND_EMAIL' });
    expect(enrich.properties.mode).toMatchObject({ enum: ['async', 'sync'], default: 'async' });
    expect(enrich.properties.prospect_limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 10_000 });

    expect(jsonBody('/public/campaigns/{id}/remove-prospects', 'post').required).toEqual(['prospect_ids']);
    expect(jsonBody('/public/campaigns/{id}/import', 'post').required).toEqual(['leads']);
    // A lead without its names or profile URL is skipped with its reason, not a 400: no item field is required.
    const campaignLead = jsonBody('/public/campaigns/{id}/import', 'post').properties.leads.items;
    expect(campaignLead.required).toBeUndefined();
    expect(campaignLead.description).toMatch(/^A person: first_name, last_name and network_profile_url \(an email alone is not enough here\)\. A row without them is not a 400/);
    const listLead = jsonBody('/public/lead-lists/{id}/import', 'post').properties.leads.items.anyOf[0];
    expect(listLead.required).toBeUndefined();
    expect(listLead.description).toMatch(/^A person: first_name, last_name, and network_profile_url or email\. A row without them is not a 400/);
    expect(jsonBody('/public/lead-lists/{id}/import', 'post').anyOf).toEqual([{ required: ['leads'] }, { required: ['csv'] }]);
    expect(jsonBody('/public/lead-lists/{id}/add-leads', 'post').properties.prospect_ids).toMatchObject({ type: 'array', items: { type: 'integer' } });
  });

  it('documents an object guarded against arrays as that object', () => {
    const window = jsonBody('/public/campaigns/{id}', 'patch').properties.sending_window;
    expect(window.type).toBe('object');
    expect(window.properties.monday).toMatchObject({ type: 'object', required: ['enabled', 'start', 'end'] });
    expect(jsonBody('/public/accounts/{id}', 'patch').properties.daily_limits).toEqual({
      type: 'object',
      properties: {
        emails: { type: 'integer', minimum: 0, maximum: 2000 },
        invitations: { type: 'integer', minimum: 0, maximum: 100 },
        network_messages: { type: 'integer', minimum: 0, maximum: 150 },
      },
      required: [],
      additionalProperties: false,
    });
  });

  it('documents query parameters as the values they stand for, filters included', () => {
    expect(queryParameter('/public/lead-lists/{id}/leads', 'page_size').schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
    expect(queryParameter('/public/lead-lists/{id}/leads', 'job_title').schema.type).toBe('string');
    expect(queryParameter('/public/lead-lists/{id}/enrichment/count', 'sort_field').schema.default).toBe('id');
    expect(queryParameter('/public/lead-lists/{id}/enrichment/count', 'last_name').schema.type).toBe('string');
    expect(queryParameter('/user/webhook/deliveries', 'limit').schema).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 50 });
    expect(queryParameter('/public/analytics', 'campaign_statuses').schema).toMatchObject({
      type: 'array',
      items: { type: 'string', enum: ['DRAFT', 'ACTIVE', 'PAUSED', 'COMPLETED', 'ARCHIVED'] },
    });
    expect(queryParameter('/public/analytics', 'start_date').schema).toMatchObject({ type: 'string', format: 'date' });
    expect(queryParameter('/public/campaigns/{id}/prospects', 'status').schema.enum).toEqual([...PROSPECT_STATUSES]);
  });

  it('names the search filters the reader accepts and the shapes of their values', () => {
    const filters = jsonBody('/public/prospects/search', 'post').properties.filters;
    expect(filters.propertyNames.enum).toEqual([
      ...['job_title', 'seniority', 'department', 'company_name', 'company_size', 'industry', 'location', 'keywords'],
      ...['name', 'revenue'],
      ...['current_title', 'prospect_location', 'company', 'amount_of_employees'],
    ]);
    const text = { type: 'string', maxLength: 200 };
    const values = { anyOf: [text, { type: 'array', items: text, maxItems: 50 }] };
    expect(filters.additionalProperties).toEqual({
      anyOf: [...values.anyOf, { type: 'object', properties: { must: values, doesnt: values }, additionalProperties: false }, { type: 'null' }],
    });
    expect(filters.default).toEqual({});
  });

  it('types counts and ids of answers as integers, and names the value a sync enrichment found', () => {
    const totals = operation('/public/analytics', 'get').responses['200'].content['application/json'].schema.properties.analytics.properties;
    expect(totals.total_emails_sent).toEqual({ type: 'integer', minimum: 0 });
    expect(totals.reply_rate).toEqual({ type: 'number' });
    const sync = operation('/public/lead-lists/{id}/enrichment', 'post').responses['200'].content['application/json'].schema.anyOf[1];
    expect(Object.keys(sync.properties.results.items.properties)).toEqual(
      expect.arrayContaining(['email', 'phone_number']),
    );
    expect(sync.properties.results.items.additionalProperties).toBe(false);
  });

  it('says when to retry on every 429, and that a form route takes both form encodings', () => {
    const limited = operation('/public/lead-lists', 'get').responses['429'];
    expect(limited.headers).toEqual({ 'Retry-After': { description: 'Seconds until the request may succeed.', schema: { type: 'integer', minimum: 1 } } });
    const oneClick = operation('/unsubscribe/{token}', 'post').requestBody.content;
    expect(Object.keys(oneClick)).toEqual(['application/x-www-form-urlencoded', 'multipart/form-data']);
    expect(oneClick['multipart/form-data'].schema.required).toEqual(['List-Unsubscribe']);
  });
});
