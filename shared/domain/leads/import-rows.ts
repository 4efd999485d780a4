import { parse as parseCsv } from 'csv-parse/sync';
import { DomainError, validationError } from '../errors';
import { type CompanyFields, LIMITS, type ProspectFields, type SearchType } from './lead';
import { canonicalPageUrl, cleanText, isEmail, normalizeEmail, websiteDomain } from './normalize';

/** A company as a row or a provider gives it, normalised. */
export interface CompanyInput extends CompanyFields {
  domain?: string;
}

export interface ProspectInput {
  fields: ProspectFields;
  company?: CompanyInput;
}

export type LeadInput = ProspectInput | CompanyInput;

/** One import row: its 1-based number and either the normalised lead or why it was refused. */
export type ImportRow<T extends LeadInput = LeadInput> = { row: number; input: T } | { row: number; error: string };

const COMPANY_FIELD_NAMES = ['name', 'website_url', 'network_url', 'logo_url', 'industry', 'location', 'amount_of_employees', 'revenue'] as const;

/** Lead fields of a PEOPLE import (the campaign import's fields, plus company size, revenue and logo). */
export const PEOPLE_IMPORT_FIELDS = [
  'first_name',
  'last_name',
  'network_profile_url',
  'email',
  'phone_number',
  'job_title',
  'location',
  'headline',
  'industry',
  'profile_picture_url',
  'custom_fields',
  ...COMPANY_FIELD_NAMES.map((name) => `company_${name}`),
] as const;

export const COMPANY_IMPORT_FIELDS = COMPANY_FIELD_NAMES;

const CUSTOM_FIELD_PREFIX = 'custom_fields.';

/** A flat row: field name -> raw value. Nested `company` objects are flattened to `company_*`. */
type FlatRow = Record<string, unknown>;

class RowError extends Error {}

function text(row: FlatRow, field: string): string | undefined {
  const raw = row[field];
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'number' || typeof raw === 'boolean') return cleanText(String(raw));
  if (typeof raw !== 'string') throw new RowError(`${field} must be a string`);
  const value = cleanText(raw);
  if (value && value.length > LIMITS.maxFieldLength) throw new RowError(`${field} must be at most ${LIMITS.maxFieldLength} characters`);
  return value;
}

function pageUrl(row: FlatRow, field: string): string | undefined {
  const raw = text(row, field);
  if (raw === undefined) return undefined;
  const canonical = canonicalPageUrl(raw);
  if (!canonical) throw new RowError(`${field} is not a valid URL`);
  return canonical;
}

function website(row: FlatRow, field: string): { url?: string; domain?: string } {
  const raw = text(row, field);
  if (raw === undefined) return {};
  const domain = websiteDomain(raw);
  if (!domain) throw new RowError(`${field} is not a valid URL`);
  return { url: raw, domain };
}

const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

/** The company of a row, from fields named `<prefix><field>`; undefined when it names none. */
function readCompany(row: FlatRow, prefix: string): CompanyInput | undefined {
  const name = text(row, `${prefix}name`);
  const site = website(row, `${prefix}website_url`);
  const networkUrl = pageUrl(row, `${prefix}network_url`);
  if (!name && !site.domain && !networkUrl) return undefined;
  return defined({
    name: name ?? site.domain ?? '',
    websiteUrl: site.url,
    domain: site.domain,
    networkUrl,
    logoUrl: text(row, `${prefix}logo_url`),
    industry: text(row, `${prefix}industry`),
    location: text(row, `${prefix}location`),
    amountOfEmployees: text(row, `${prefix}amount_of_employees`) ?? text(row, `${prefix}size`),
    revenue: text(row, `${prefix}revenue`),
  });
}

function readProspect(row: FlatRow): ProspectInput {
  const firstName = text(row, 'first_name');
  if (!firstName) throw new RowError('first_name is required');
  const lastName = text(row, 'last_name');
  if (!lastName) throw new RowError('last_name is required');
  const networkProfileUrl = pageUrl(row, 'network_profile_url');
  const rawEmail = text(row, 'email');
  const email = rawEmail === undefined ? undefined : normalizeEmail(rawEmail);
  if (email !== undefined && !isEmail(email)) throw new RowError('email is not a valid email address');
  if (!networkProfileUrl && !email) throw new RowError('network_profile_url or email is required');
  const custom = row.custom_fields;
  if (custom !== undefined && custom !== null && (typeof custom !== 'object' || Array.isArray(custom))) {
    throw new RowError('custom_fields must be an object');
  }
  if (custom && JSON.stringify(custom).length > LIMITS.maxFieldLength * 10) {
    throw new RowError(`custom_fields must be at most ${LIMITS.maxFieldLength * 10} characters as JSON`);
  }
  const company = readCompany(row, 'company_');
  const fields: ProspectFields = defined({
    firstName,
    lastName,
    email,
    networkProfileUrl,
    phoneNumber: text(row, 'phone_number'),
    jobTitle: text(row, 'job_title'),
    location: text(row, 'location'),
    headline: text(row, 'headline'),
    industry: text(row, 'industry'),
    profilePictureUrl: text(row, 'profile_picture_url'),
    customFields: custom && Object.keys(custom).length > 0 ? (custom as Record<string, unknown>) : undefined,
  });
  return company ? { fields, company } : { fields };
}

function readCompanyRow(row: FlatRow): CompanyInput {
  const company = readCompany(row, '');
  if (!company?.name) throw new RowError('name is required');
  return company;
}

function readRow<T extends LeadInput>(flat: FlatRow, row: number, read: (row: FlatRow) => T): ImportRow<T> {
  try {
    return { row, input: read(flat) };
  } catch (error) {
    if (error instanceof RowError) return { row, error: error.message };
    throw error;
  }
}

const readerFor = (searchType: SearchType): ((row: FlatRow) => LeadInput) =>
  searchType === 'PEOPLE' ? readProspect : readCompanyRow;

function tooManyRows(count: number): DomainError {
  return new DomainError(
    'payload_too_large',
    `Too many leads: ${count} rows; at most ${LIMITS.maxImportRows} rows per import request`,
  );
}

/** JSON leads: objects with lead fields; a nested `company` object stands for the `company_*` fields. */
function flattenJsonLead(lead: unknown, searchType: SearchType): FlatRow | undefined {
  if (typeof lead !== 'object' || lead === null || Array.isArray(lead)) return undefined;
  const flat: FlatRow = {};
  const source = lead as Record<string, unknown>;
  const nested = source.company;
  if (searchType === 'PEOPLE' && typeof nested === 'object' && nested !== null && !Array.isArray(nested)) {
    for (const [key, value] of Object.entries(nested)) flat[`company_${key}`] = value;
  }
  for (const [key, value] of Object.entries(source)) {
    if (key === 'company' && searchType === 'PEOPLE') continue;
    // COMPANY rows may also say company_name, company_website_url, ...
    const name = searchType === 'COMPANY' && key.startsWith('company_') ? key.slice('company_'.length) : key;
    if (value !== undefined && (flat[name] === undefined || key === name)) flat[name] = value;
  }
  return flat;
}

export function readJsonLeads(leads: unknown[], searchType: SearchType): ImportRow[] {
  if (leads.length > LIMITS.maxImportRows) throw tooManyRows(leads.length);
  return leads.map((lead, index) => {
    const flat = flattenJsonLead(lead, searchType);
    return flat ? readRow(flat, index + 1, readerFor(searchType)) : { row: index + 1, error: 'lead must be an object' };
  });
}

const normalizeHeader = (header: string): string =>
  header
    .trim()
    .toLowerCase()
    .replace(/[\s.-]+/g, '_');

/**
 * CSV text with a header row. Each column goes to the field its mapping names, else to the field
 * its header names (`First Name` -> first_name); other columns become custom fields of prospects
 * (ignored for companies). A mapping value of null ignores the column.
 */
export function readCsvLeads(csv: string, mapping: Record<string, string | null> | undefined, searchType: SearchType): ImportRow[] {
  let records: string[][];
  try {
    records = parseCsv(csv, { bom: true, skip_empty_lines: true, relax_column_count: true, trim: true }) as string[][];
  } catch (error) {
    throw validationError(`csv could not be parsed: ${(error as Error).message}`);
  }
  const [header, ...data] = records;
  if (!header) throw validationError('csv must have a header row');
  if (data.length > LIMITS.maxImportRows) throw tooManyRows(data.length);

  const fields: readonly string[] = searchType === 'PEOPLE' ? PEOPLE_IMPORT_FIELDS : COMPANY_IMPORT_FIELDS;
  const mapped = new Map<string, string | null>();
  for (const [column, field] of Object.entries(mapping ?? {})) {
    const index = header.findIndex((name) => name.trim().toLowerCase() === column.trim().toLowerCase());
    if (index < 0) throw validationError(`mapping: column '${column}' is not in the CSV header`);
    if (field !== null) {
      const isCustom = searchType === 'PEOPLE' && field.startsWith(CUSTOM_FIELD_PREFIX) && field.length > CUSTOM_FIELD_PREFIX.length;
      if (!isCustom && !fields.includes(field)) {
        throw validationError(`mapping: unknown field '${field}' for column '${column}'. Fields: ${fields.join(', ')}`);
      }
    }
    mapped.set(String(index), field);
  }
  const targets = header.map((name, index) => {
    if (mapped.has(String(index))) return mapped.get(String(index)) ?? null;
    const normalized = normalizeHeader(name);
    if (fields.includes(normalized) && normalized !== 'custom_fields') return normalized;
    if (searchType === 'COMPANY' && fields.includes(normalized.replace(/^company_/, ''))) return normalized.replace(/^company_/, '');
    return searchType === 'PEOPLE' && name.trim() ? `${CUSTOM_FIELD_PREFIX}${name.trim()}` : null;
  });

  const flatRows = data.map((cells) => {
    const flat: FlatRow = {};
    cells.forEach((cell, index) => {
      const target = targets[index];
      if (!target || cell === '') return;
      if (target.startsWith(CUSTOM_FIELD_PREFIX)) {
        const custom = (flat.custom_fields ?? {}) as Record<string, unknown>;
        custom[target.slice(CUSTOM_FIELD_PREFIX.length)] = cell;
        flat.custom_fields = custom;
      } else {
        flat[target] = cell;
      }
    });
    return flat;
  });
  return flatRows.map((flat, index) => readRow(flat, index + 1, readerFor(searchType)));
}

/** A provider's or caller's company, normalised like an import row; undefined when it is unusable. */
export function normalizeCompany(raw: Record<string, unknown>): CompanyInput | undefined {
  try {
    return readCompany(raw, '');
  } catch (error) {
    if (error instanceof RowError) return undefined;
    throw error;
  }
}

/** A provider's person, normalised like an import row; undefined when it lacks what a prospect needs. */
export function normalizeProspect(raw: Record<string, unknown>): ProspectInput | undefined {
  try {
    return readProspect(raw);
  } catch (error) {
    if (error instanceof RowError) return undefined;
    throw error;
  }
}
