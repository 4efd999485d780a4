import { parse as parseCsv } from 'csv-parse/sync';
import { DomainError, validationError } from '../errors';
import {
  COMPANY_IMPORT_FIELDS,
  CUSTOM_FIELD_PREFIX,
  CompanyFieldsRow,
  CsvMapping,
  PEOPLE_IMPORT_FIELDS,
  PeopleImportRow,
  importRowSchema,
  cellFits,
  mappingFieldProblem,
} from './import-schemas';
import { LIMITS, type SearchType } from './lead';
import { bareObject, isPlainObject, ownDefined, parseOrThrow, validate } from '../validation';

import type { CompanyInput, ProspectInput } from './import-schemas';

export type { CompanyInput, ProspectInput };

export type LeadInput = ProspectInput | CompanyInput;

/** One import row: its 1-based number and either the normalised lead or why it was refused. */
export type ImportRow<T extends LeadInput = LeadInput> = { row: number; input: T } | { row: number; error: string };

export { COMPANY_IMPORT_FIELDS, PEOPLE_IMPORT_FIELDS } from './import-schemas';

/** A flat row: field name -> raw value, without a prototype. Nested `company` objects are flattened to `company_*`. */
type FlatRow = Record<string, unknown>;

function readRow(flat: FlatRow, row: number, searchType: SearchType): ImportRow {
  const result = validate(importRowSchema(searchType), flat);
  return result.ok ? { row, input: result.value } : { row, error: result.message };
}

function tooManyRows(count: number): DomainError {
  return new DomainError(
    'payload_too_large',
    `Too many leads: ${count} rows; at most ${LIMITS.maxImportRows} rows per import request`,
  );
}

/** Why a PEOPLE row's `company` cannot be read: neither the company's fields nor its name. */
const NESTED_COMPANY_TYPE = 'company must be an object (the company_* fields without their prefix) or a string (its name)';

/**
 * JSON leads: objects with lead fields; in a PEOPLE row a nested `company` object stands for the
 * `company_*` fields, and a string for `company_name` (as a CSV's `Company` column does).
 */
export function flattenJsonLead(lead: unknown, searchType: SearchType): FlatRow | undefined {
  if (!isPlainObject(lead)) return undefined;
  const flat = bareObject();
  const own = new Map(Object.entries(lead));
  const nested = own.get('company');
  if (searchType === 'PEOPLE' && isPlainObject(nested)) {
    for (const [key, value] of Object.entries(nested)) if (value !== undefined) flat[`company_${key}`] = value;
  } else if (searchType === 'PEOPLE' && typeof nested === 'string') {
    // A flat company_name, read below, is written over it, as over a nested object's name.
    flat.company_name = nested;
  }
  for (const [key, value] of own) {
    if (value === undefined || (key === 'company' && searchType === 'PEOPLE')) continue;
    // COMPANY rows may also say company_name, company_website_url, ...; the plain name wins.
    const name = searchType === 'COMPANY' && key.startsWith('company_') ? key.slice('company_'.length) : key;
    if (key === name || !Object.hasOwn(flat, name)) flat[name] = value;
  }
  return flat;
}

export function readJsonLeads(leads: unknown[], searchType: SearchType): ImportRow[] {
  if (leads.length > LIMITS.maxImportRows) throw tooManyRows(leads.length);
  return leads.map((lead, index) => {
    const flat = flattenJsonLead(lead, searchType);
    if (!flat) return { row: index + 1, error: 'lead must be an object' };
    const read = readRow(flat, index + 1, searchType);
    const nested = (lead as Record<string, unknown>).company;
    // After the person's own reasons, as the company's fields come after them. Before 2026-11-28 any
    // other `company` was dropped without a word, and the row imported without its company.
    const unreadable = searchType === 'PEOPLE' && nested != null && typeof nested !== 'string' && !isPlainObject(nested);
    return unreadable && 'input' in read ? { row: index + 1, error: NESTED_COMPANY_TYPE } : read;
  });
}

const snakeCase = (header: string): string => header.trim().toLowerCase().replace(/[\s.-]+/g, '_');

/**
 * The names a header may stand for, most literal first: `First Name`, `first-name` and `FIRST_NAME`
 * are `first_name`; `firstName` is `firstname`, then `first_name` (camelCase split), so `LinkedIn`
 * stays `linkedin` before it is `linked_in`.
 */
const headerNames = (header: string): string[] => [...new Set([snakeCase(header), snakeCase(header.trim().replace(/([a-z0-9])([A-Z])/g, '$1_$2'))])];

/**
 * Headers other tools export (lemlist, Apollo, Sales Navigator, HubSpot), normalized, and the field
 * each means: a CSV exported from them imports without a mapping (docs/lead-lists.md, "Import").
 */
const PEOPLE_HEADER_ALIASES: Record<string, string> = {
  firstname: 'first_name',
  given_name: 'first_name',
  lastname: 'last_name',
  surname: 'last_name',
  family_name: 'last_name',
  email_address: 'email',
  e_mail: 'email',
  work_email: 'email',
  linkedin_url: 'network_profile_url',
  linkedin: 'network_profile_url',
  linkedin_profile: 'network_profile_url',
  linkedin_profile_url: 'network_profile_url',
  person_linkedin_url: 'network_profile_url',
  linked_in_url: 'network_profile_url',
  linked_in_profile_url: 'network_profile_url',
  title: 'job_title',
  jobtitle: 'job_title',
  position: 'job_title',
  phone: 'phone_number',
  mobile_phone: 'phone_number',
  first_phone: 'phone_number',
  work_direct_phone: 'phone_number',
  company: 'company_name',
  companyname: 'company_name',
  organization: 'company_name',
  organization_name: 'company_name',
  company_website: 'company_website_url',
  website: 'company_website_url',
  website_url: 'company_website_url',
  company_linkedin_url: 'company_network_url',
  company_linkedin: 'company_network_url',
  company_linked_in_url: 'company_network_url',
  company_domain: 'company_website_url',
  company_domain_name: 'company_website_url',
  linkedin_company_page: 'company_network_url',
  '#_employees': 'company_amount_of_employees',
  employees: 'company_amount_of_employees',
  number_of_employees: 'company_amount_of_employees',
  employee_count: 'company_amount_of_employees',
  company_size: 'company_amount_of_employees',
  annual_revenue: 'company_revenue',
};
const COMPANY_HEADER_ALIASES: Record<string, string> = {
  company: 'name',
  companyname: 'name',
  organization: 'name',
  organization_name: 'name',
  website: 'website_url',
  company_website: 'website_url',
  // Not a bare `LinkedIn URL`: in a people export it is the person's page.
  company_linkedin_url: 'network_url',
  company_linkedin: 'network_url',
  company_linked_in_url: 'network_url',
  domain: 'website_url',
  company_domain: 'website_url',
  company_domain_name: 'website_url',
  linkedin_company_page: 'network_url',
  '#_employees': 'amount_of_employees',
  employees: 'amount_of_employees',
  number_of_employees: 'amount_of_employees',
  employee_count: 'amount_of_employees',
  company_size: 'amount_of_employees',
  size: 'amount_of_employees',
  annual_revenue: 'revenue',
};

/**
 * Where a column goes: a field, `custom_fields.<key>`, or nowhere (null). `alias`: read through
 * another tool's header name (`LinkedIn`, `Website`, `Work Email`), so it never fails a row its own
 * way: a cell that is no valid value of the field goes to `orCustom` (the custom field of its header,
 * as before the aliases; nowhere in a COMPANY list), and it never replaces a value a column named
 * for the field gave.
 */
interface ColumnTarget {
  target: string | null;
  alias?: { orCustom: string | null };
  /** A part of a location other tools split (`City`, `State`, `Country`): joined into `field` (readCsvLeads). */
  part?: { field: string; orCustom: string | null };
}

/**
 * Columns other tools split a location into (Apollo, HubSpot: `City`, `State`, `Country`,
 * `Country/Region`; `Company City`, ...), normalized, and the field their parts join into.
 */
const LOCATION_PARTS: Record<SearchType, Record<string, string>> = {
  PEOPLE: {
    city: 'location',
    state: 'location',
    country: 'location',
    'country/region': 'location',
    company_city: 'company_location',
    company_state: 'company_location',
    company_country: 'company_location',
    'company_country/region': 'company_location',
  },
  COMPANY: {
    city: 'location',
    state: 'location',
    country: 'location',
    'country/region': 'location',
    company_city: 'location',
    company_state: 'location',
    company_country: 'location',
    'company_country/region': 'location',
  },
};

function columnTargets(header: string[], mapping: Record<string, string | null> | undefined, searchType: SearchType): ColumnTarget[] {
  const fields: readonly string[] = searchType === 'PEOPLE' ? PEOPLE_IMPORT_FIELDS : COMPANY_IMPORT_FIELDS;
  const mapped = new Map<number, string | null>();
  for (const [column, field] of Object.entries(parseOrThrow(CsvMapping, mapping ?? {}))) {
    const index = header.findIndex((name) => name.trim().toLowerCase() === column.trim().toLowerCase());
    if (index < 0) throw validationError(`mapping: column '${column}' is not in the CSV header`);
    const problem = field === null ? undefined : mappingFieldProblem(searchType, column, field);
    if (problem) throw validationError(problem);
    mapped.set(index, field);
  }
  const aliases = searchType === 'PEOPLE' ? PEOPLE_HEADER_ALIASES : COMPANY_HEADER_ALIASES;
  const fieldOf = (name: string) => (fields.includes(name) && name !== 'custom_fields' ? name : undefined);
  return header.map((name, index): ColumnTarget => {
    if (mapped.has(index)) return { target: mapped.get(index) ?? null };
    const custom = searchType === 'PEOPLE' && name.trim() ? `${CUSTOM_FIELD_PREFIX}${name.trim()}` : null;
    const names = headerNames(name);
    // Its own name (COMPANY rows also with a `company_` prefix), then another tool's name for it.
    const own = names.map(fieldOf).find(Boolean) ?? (searchType === 'COMPANY' ? names.map((candidate) => fieldOf(candidate.replace(/^company_/, ''))).find(Boolean) : undefined);
    if (own) return { target: own };
    // A field a mapping names takes no other tool's column (the caller said which one it is).
    const aliased = names.map((candidate) => (Object.hasOwn(aliases, candidate) ? aliases[candidate] : undefined)).find((field) => field !== undefined && ![...mapped.values()].includes(field));
    if (aliased) return { target: aliased, alias: { orCustom: custom } };
    const part = names.map((candidate) => (Object.hasOwn(LOCATION_PARTS[searchType], candidate) ? LOCATION_PARTS[searchType][candidate] : undefined)).find(Boolean);
    if (part && ![...mapped.values()].includes(part)) return { target: custom, part: { field: part, orCustom: custom } };
    return { target: custom };
  });
}

/**
 * What spreadsheets and other tools' exports put in a cell that has no value (`N/A`, `#N/A`, `-`,
 * `null`, `none`, ...). In a field it is no value: `Company` = `N/A` named a company `N/A`, and an
 * `Email` of `N/A` failed its row beside a valid `Work Email`. Names are kept as written (a row
 * whose name is a dash still imports), and custom fields too (they are the user's own data).
 */
const PLACEHOLDER_CELL = /^(?:n\/a|n\.a\.?|#n\/a|-+|null|\(null\)|none|\(none\)|undefined|not available)$/i;
const NAME_FIELDS: ReadonlySet<string> = new Set(['first_name', 'last_name']);

const isPlaceholderFor = (target: string, cell: string): boolean =>
  PLACEHOLDER_CELL.test(cell.trim()) && !NAME_FIELDS.has(target) && !target.startsWith(CUSTOM_FIELD_PREFIX);

/** The fields of a PEOPLE row that name its company (companyOf makes none without one). */
const COMPANY_NAMING_FIELDS = ['company_name', 'company_website_url', 'company_network_url'];
const COMPANY_DETAIL_FIELD = /^company_(?!name$|website_url$|network_url$)/;

const DELIMITERS = [',', ';', '\t'] as const;

/**
 * How a CSV file is laid out: its delimiter, and the line its records start on (1-based). An Excel
 * `sep=;` first line names the delimiter and is no record. Otherwise the delimiter is whichever of
 * comma, semicolon and tab the header row (its first line that is not blank) holds most often
 * outside quoted fields (a comma on a tie or none). Spreadsheets in locales whose decimal mark is a
 * comma save `;`-separated files, and some tools export tab-separated ones: read with a comma, such
 * a file was one column and every row skipped.
 */
export function csvLayout(csv: string): { delimiter: string; fromLine: number } {
  const text = csv.replace(/^\uFEFF/, '');
  const blankLines = /^(?:[ \t]*(?:\r\n|\n|\r))*/.exec(text)?.[0] ?? '';
  const header = text.slice(blankLines.length);
  // `sep=;`, quoted as some writers do (`"sep=;"`), or padded with delimiters (`sep=;;;`).
  const separator = /^[ \t]*"?sep=([^"\r\n])"?[,;\t]*[ \t]*(?:\r\n|\n|\r|$)/i.exec(header);
  if (separator) return { delimiter: separator[1] as string, fromLine: (blankLines.match(/\r\n|\n|\r/g)?.length ?? 0) + 2 };
  const counts = new Map<string, number>(DELIMITERS.map((delimiter) => [delimiter, 0]));
  let quoted = false;
  let fieldStart = true;
  for (let i = 0; i < header.length; i += 1) {
    const char = header[i] as string;
    if (quoted) {
      // A doubled quote is a quote inside the field; a single one ends it.
      if (char === '"' && header[i + 1] === '"') i += 1;
      else if (char === '"') quoted = false;
      continue;
    }
    if (char === '\n' || char === '\r') break;
    // Only a quote that opens a field quotes it: one inside an unquoted header (`Size 5"`) is text.
    if (char === '"' && fieldStart) quoted = true;
    else if (counts.has(char)) counts.set(char, (counts.get(char) ?? 0) + 1);
    fieldStart = counts.has(char) || (fieldStart && char === ' ');
  }
  const delimiter = DELIMITERS.reduce((best, candidate) => ((counts.get(candidate) ?? 0) > (counts.get(best) ?? 0) ? candidate : best));
  return { delimiter, fromLine: 1 };
}

/**
 * CSV text with a header row. Each column goes to the field its mapping names, else to the field
 * its header names (`First Name` -> first_name); other columns become custom fields of prospects
 * (ignored for companies). A mapping value of null ignores the column.
 */
export function readCsvLeads(csv: string, mapping: Record<string, string | null> | undefined, searchType: SearchType): ImportRow[] {
  let records: string[][];
  const { delimiter, fromLine } = csvLayout(csv);
  try {
    // relax_quotes: a quote inside an unquoted field (`5" screen`, `=HYPERLINK("x")`) is text, not a parse error that loses the whole file.
    // skip_records_with_empty_values: a row of empty cells (`,,,`, what spreadsheets leave after
    // the data) is no row, as an empty line is not.
    records = parseCsv(csv, {
      bom: true,
      delimiter,
      from_line: fromLine,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      relax_column_count: true,
      relax_quotes: true,
      trim: true,
    }) as string[][];
  } catch (error) {
    throw validationError(`csv could not be parsed: ${(error as Error).message}`);
  }
  const [header, ...data] = records;
  if (!header) throw validationError('csv must have a header row');
  if (data.length > LIMITS.maxImportRows) throw tooManyRows(data.length);
  const targets = columnTargets(header, mapping, searchType);

  return data.map((cells, index) => {
    const flat = bareObject();
    // A Map, so that a column named like `__proto__` is a key like any other until it is validated.
    const custom = new Map<string, string>();
    const put = (target: string, cell: string) => {
      if (target.startsWith(CUSTOM_FIELD_PREFIX)) custom.set(target.slice(CUSTOM_FIELD_PREFIX.length), cell);
      else flat[target] = cell;
    };
    // Columns named for their field (or mapped to it) first, then other tools' columns, which take
    // a field none of those (nor an earlier such column) gave, with a valid value; else they keep
    // their cell as a custom field: whatever the order of the columns.
    const aliased: [number, string][] = [];
    const parts = new Map<string, { orCustom: string | null; cell: string }[]>();
    cells.forEach((cell, column) => {
      const { target, alias, part } = targets[column] ?? { target: null };
      if (part) {
        if (cell !== '' && !PLACEHOLDER_CELL.test(cell.trim())) parts.set(part.field, [...(parts.get(part.field) ?? []), { orCustom: part.orCustom, cell }]);
        return;
      }
      if (!target || cell === '' || isPlaceholderFor(target, cell)) return;
      if (alias) aliased.push([column, cell]);
      else put(target, cell);
    });
    const companyDetails: { field: string; orCustom: string | null; cell: string }[] = [];
    for (const [column, cell] of aliased) {
      const { target: field, alias } = targets[column] as Required<ColumnTarget>;
      const target = Object.hasOwn(flat, field as string) || !cellFits(searchType, field as string, cell) ? alias.orCustom : field;
      if (target) put(target, cell);
      if (target && target === field && COMPANY_DETAIL_FIELD.test(target)) companyDetails.push({ field: target, orCustom: alias.orCustom, cell });
    }
    // A location's parts, in the order of their columns, make the location a column named for it
    // did not give (`Boston, MA, United States`); else each stays the custom field of its header.
    for (const [field, given] of parts) {
      if (Object.hasOwn(flat, field)) {
        for (const { orCustom, cell } of given) if (orCustom) put(orCustom, cell);
        continue;
      }
      put(field, given.map(({ cell }) => cell).join(', '));
      // The company's location needs a company, as its size does (below).
      if (field !== 'location') for (const { orCustom, cell } of given) companyDetails.push({ field, orCustom, cell });
    }
    // A company's size or revenue from another tool's column needs a company to go to: in a row
    // naming none it stays the custom field of its header, as before such columns were read.
    if (searchType === 'PEOPLE' && !COMPANY_NAMING_FIELDS.some((field) => Object.hasOwn(flat, field))) {
      for (const { field, orCustom, cell } of companyDetails) {
        delete flat[field];
        if (orCustom) put(orCustom, cell);
      }
    }
    if (custom.size > 0) {
      const fields = bareObject<string>();
      for (const [key, value] of custom) fields[key] = value;
      flat.custom_fields = fields;
    }
    return readRow(flat, index + 1, searchType);
  });
}

/** A provider's or caller's company, normalised like an import row; undefined when it is unusable. */
export function normalizeCompany(raw: Record<string, unknown>): CompanyInput | undefined {
  const result = validate(CompanyFieldsRow, ownDefined(raw));
  return result.ok ? result.value : undefined;
}

/** A provider's person, normalised like an import row; undefined when it lacks what a prospect needs. */
export function normalizeProspect(raw: Record<string, unknown>): ProspectInput | undefined {
  const result = validate(PeopleImportRow, ownDefined(raw));
  return result.ok ? result.value : undefined;
}
