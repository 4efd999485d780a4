import * as v from 'valibot';
import { CustomFields, customFieldKeyProblem } from './custom-fields';
import { type CompanyFields, LIMITS, type ProspectFields, type SearchType } from './lead';
import { canonicalPageUrl, cleanText, isEmail, normalizeEmail, pageSlug, websiteDomain } from './normalize';
import { jsonObject } from '../validation';

/**
 * Schemas of one import row and of a CSV mapping. A row is validated flat: a JSON lead's nested
 * `company` has become `company_*` fields and a COMPANY row's `company_` prefix is gone
 * (see flattenJsonLead); a CSV row holds its cells under the fields their columns go to. Unknown
 * keys are ignored. Each issue's message is the reason the row is skipped with.
 */

const COMPANY_FIELD_NAMES = ['name', 'website_url', 'network_url', 'logo_url', 'industry', 'location', 'amount_of_employees', 'revenue'] as const;

/** A company as a row or a provider gives it, normalised (what the company schemas produce). */
export interface CompanyInput extends CompanyFields {
  domain?: string;
  /**
   * The row gave no name: `name` is its website's domain, else its network page's slug, which names
   * a company it creates but never renames one it updates (before 2026-11-28 a row of a website
   * and a location renamed "Acme Corp" to "acme.example", and a row of a network page only created
   * a company named "": probes).
   */
  nameDerived?: true;
}

/** A person as a row or a provider gives it, normalised, with their company if the row names one. */
export interface ProspectInput {
  fields: ProspectFields;
  company?: CompanyInput;
}

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

export const CUSTOM_FIELD_PREFIX = 'custom_fields.';

/**
 * A JSON number whose text is the number as sent: an integer past 2^53 or one written with an
 * exponent has already lost digits when the body was read (`12345678901234567890` became
 * `12345678901234567000`, silently, before 2026-11-29: a probe).
 */
const exactNumber = (value: number): boolean =>
  Number.isSafeInteger(value) || (Number.isFinite(value) && !Number.isInteger(value) && !String(value).includes('e'));

/** Text of a field: numbers (exact ones) and booleans count as text; cleaned; null or blank is no value. */
function text(field: string) {
  return v.pipe(
    v.union([v.string(), v.number(), v.boolean(), v.null()], `${field} must be a string`),
    v.check((raw) => typeof raw !== 'number' || exactNumber(raw), `${field} is a number too large to keep exactly: send it as a string`),
    v.transform((raw) => (raw === null ? undefined : cleanText(String(raw)))),
    v.check(
      (value) => value === undefined || value.length <= LIMITS.maxFieldLength,
      `${field} must be at most ${LIMITS.maxFieldLength} characters`,
    ),
  );
}

const optionalText = (field: string) => v.optional(text(field));

/** A text field a row cannot do without; a missing one is reported by the row's object schema. */
const requiredText = (field: string) =>
  v.pipe(
    text(field),
    v.check((value) => value !== undefined, `${field} is required`),
    v.transform((value) => value as string),
  );

/** A profile or company page URL, in its canonical form. */
const pageUrl = (field: string) =>
  v.optional(
    v.pipe(
      text(field),
      v.check((raw) => raw === undefined || canonicalPageUrl(raw) !== undefined, `${field} is not a valid URL`),
      v.transform((raw) => (raw === undefined ? undefined : canonicalPageUrl(raw))),
    ),
  );

/**
 * An image URL shown as given (a profile picture, a logo): http or https only, so no `javascript:`
 * or `data:` value reaches a page that renders it.
 */
const imageUrl = (field: string) =>
  v.optional(
    v.pipe(
      text(field),
      v.check((raw) => raw === undefined || (/^https?:\/\//i.test(raw) && URL.canParse(raw)), `${field} is not a valid URL`),
    ),
  );

/** A website as given; its domain (taken when the company is read) must exist. */
const website = (field: string) =>
  v.optional(v.pipe(text(field), v.check((raw) => raw === undefined || websiteDomain(raw) !== undefined, `${field} is not a valid URL`)));

const email = v.optional(
  v.pipe(
    text('email'),
    v.transform((raw) => (raw === undefined ? undefined : normalizeEmail(raw))),
    v.check((value) => value === undefined || isEmail(value), 'email is not a valid email address'),
  ),
);

/** The fields that name a company (`<prefix>name`, website, network page): a company exists if one is set. */
function companyNameEntries(prefix: string) {
  return {
    [`${prefix}name`]: optionalText(`${prefix}name`),
    [`${prefix}website_url`]: website(`${prefix}website_url`),
    [`${prefix}network_url`]: pageUrl(`${prefix}network_url`),
  };
}

/** The company fields of a row, named `<prefix><field>`, in the order they are checked. */
function companyEntries(prefix: string) {
  return {
    ...companyNameEntries(prefix),
    [`${prefix}logo_url`]: imageUrl(`${prefix}logo_url`),
    [`${prefix}industry`]: optionalText(`${prefix}industry`),
    [`${prefix}location`]: optionalText(`${prefix}location`),
    [`${prefix}amount_of_employees`]: optionalText(`${prefix}amount_of_employees`),
    // Older rows and providers say size.
    [`${prefix}size`]: optionalText(`${prefix}size`),
    [`${prefix}revenue`]: optionalText(`${prefix}revenue`),
  };
}

/** A missing required field is an issue of the row's object; anything that is no object cannot be a lead. */
const rowMessage = (issue: v.ObjectIssue) => (issue.path?.[0] ? `${String(issue.path[0].key)} is required` : 'lead must be an object');

/** The text a validated row holds for a field (the object's type knows only the fixed names). */
const textOf = (row: object, field: string): string | undefined => (row as Readonly<Record<string, string | undefined>>)[field];

const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;

/** The company a validated row names with fields `<prefix><field>`; undefined when it names none. */
function companyOf(row: object, prefix: string): CompanyInput | undefined {
  const name = textOf(row, `${prefix}name`);
  const websiteUrl = textOf(row, `${prefix}website_url`);
  const domain = websiteUrl === undefined ? undefined : websiteDomain(websiteUrl);
  const networkUrl = textOf(row, `${prefix}network_url`);
  if (!name && !domain && !networkUrl) return undefined;
  // Never "": a page without a usable slug names its company by its URL.
  const derivedName = domain ?? (networkUrl === undefined ? undefined : (pageSlug(networkUrl) ?? networkUrl));
  return defined({
    name: name ?? derivedName ?? '',
    nameDerived: name === undefined && derivedName !== undefined ? (true as const) : undefined,
    websiteUrl,
    domain,
    networkUrl,
    logoUrl: textOf(row, `${prefix}logo_url`),
    industry: textOf(row, `${prefix}industry`),
    location: textOf(row, `${prefix}location`),
    amountOfEmployees: textOf(row, `${prefix}amount_of_employees`) ?? textOf(row, `${prefix}size`),
    revenue: textOf(row, `${prefix}revenue`),
  });
}

const PERSON_DETAIL_ENTRIES = {
  phone_number: optionalText('phone_number'),
  job_title: optionalText('job_title'),
  location: optionalText('location'),
  headline: optionalText('headline'),
  industry: optionalText('industry'),
  profile_picture_url: imageUrl('profile_picture_url'),
};


/**
 * Every field of a person row with its type: what a PEOPLE row may hold (the documented shape).
 * Validation runs in stages (PeopleImportRow), in the order the reader has always checked them.
 */
export const PeopleImportRowFields = v.object(
  {
    first_name: requiredText('first_name'),
    last_name: requiredText('last_name'),
    network_profile_url: pageUrl('network_profile_url'),
    email,
    custom_fields: v.optional(v.nullable(CustomFields)),
    ...companyEntries('company_'),
    ...PERSON_DETAIL_ENTRIES,
  },
  rowMessage,
);

/** One stage of a row's validation: its first issue is the row's reason; its outputs replace the raw values. */
const stage = <S extends v.GenericSchema<unknown, Record<string, unknown>>>(schema: S, when: (row: Record<string, unknown>) => boolean = () => true) =>
  v.rawTransform<Record<string, unknown>, Record<string, unknown>>(({ dataset, addIssue, NEVER }) => {
    if (!when(dataset.value)) return dataset.value;
    const result = v.safeParse(schema, dataset.value, { abortEarly: true });
    if (result.success) return { ...dataset.value, ...result.output };
    addIssue({ message: result.issues[0].message });
    return NEVER;
  });

const laterFields = Object.fromEntries(
  Object.keys(PeopleImportRowFields.entries)
    .filter((field) => !['first_name', 'last_name', 'network_profile_url', 'email'].includes(field))
    .map((field) => [field, v.optional(v.unknown())]),
);

/**
 * A person of a PEOPLE import or of the directory: names, a profile URL or email, optionally their
 * company. Checked in stages, so a row's reason is the one it has always been: who the person is
 * (and that a profile URL or email names them) first, then custom fields, then the company's name,
 * website and page; the company's other fields only when the row names a company (otherwise they
 * are ignored, as the company is); the person's other fields last.
 */
export const PeopleImportRow = v.pipe(
  v.object(
    {
      first_name: requiredText('first_name'),
      last_name: requiredText('last_name'),
      network_profile_url: pageUrl('network_profile_url'),
      email,
      ...laterFields,
    },
    rowMessage,
  ),
  v.check((row) => row.network_profile_url !== undefined || row.email !== undefined, 'network_profile_url or email is required'),
  // The later stages read and replace fields by name.
  v.transform((row): Record<string, unknown> => row),
  stage(v.object({ custom_fields: v.optional(v.nullable(CustomFields)) })),
  stage(v.object(companyNameEntries('company_'))),
  stage(v.object(companyEntries('company_')), (row) => companyOf(row, 'company_') !== undefined),
  stage(v.object(PERSON_DETAIL_ENTRIES)),
  v.transform((raw): ProspectInput => {
    const row = raw as v.InferOutput<typeof PeopleImportRowFields>;
    const fields: ProspectFields = defined({
      firstName: row.first_name,
      lastName: row.last_name,
      email: row.email,
      networkProfileUrl: row.network_profile_url,
      phoneNumber: row.phone_number,
      jobTitle: row.job_title,
      location: row.location,
      headline: row.headline,
      industry: row.industry,
      profilePictureUrl: row.profile_picture_url,
      customFields: row.custom_fields ?? undefined,
    });
    const company = companyOf(row, 'company_');
    return company ? { fields, company } : { fields };
  }),
);

/** The fields of a company, read from a row or a provider; undefined when it names no company. */
export const CompanyFieldsRow = v.pipe(
  v.object(companyEntries(''), rowMessage),
  v.transform((row) => companyOf(row, '')),
);

/** A company of a COMPANY import: it needs a name, or a website whose domain then names it. */
export const CompanyImportRow = v.pipe(
  v.object(companyEntries(''), rowMessage),
  v.check((row) => !!(textOf(row, 'name') || companyOf(row, '')?.domain), 'name is required'),
  v.transform((row) => companyOf(row, '') as CompanyInput),
);

const COMPANY_ENTRIES: Record<string, v.GenericSchema> = companyEntries('');

/**
 * Whether a cell is a valid value of one field of a row of that list type (a column read through
 * another tool's header name falls back when it is not: import-rows.ts).
 */
export function cellFits(searchType: SearchType, field: string, cell: string): boolean {
  const entries: Record<string, v.GenericSchema> = searchType === 'PEOPLE' ? PeopleImportRowFields.entries : COMPANY_ENTRIES;
  const schema = Object.hasOwn(entries, field) ? entries[field] : undefined;
  return schema === undefined || v.safeParse(schema, cell).success;
}

/** The import row schema of a list type. */
export const importRowSchema = (searchType: SearchType) => (searchType === 'PEOPLE' ? PeopleImportRow : CompanyImportRow);

const MAPPING_MESSAGE = 'mapping must be an object of column name -> field name';

/**
 * `mapping` of a CSV import: column name -> field name, or null to ignore the column. Column
 * names are kept exactly as sent, `constructor` and `__proto__` included (they are CSV headers
 * like any other), so the object is checked as it is rather than copied by a record schema.
 */
export const CsvMapping = v.pipe(
  jsonObject<Record<string, string | null>>(MAPPING_MESSAGE),
  v.description('CSV column name -> field name (or custom_fields.<key>), or null to ignore the column.'),
  v.check(
    (mapping) => Object.values(mapping).every((field) => field === null || typeof field === 'string'),
    (issue) => {
      const bad = Object.entries(issue.input as object).find(([, field]) => field !== null && typeof field !== 'string');
      return bad ? `mapping.${bad[0]} must be a string` : MAPPING_MESSAGE;
    },
  ),
);

/** Why a column cannot go to `field` in a list of the type; undefined when it can. */
export function mappingFieldProblem(searchType: SearchType, column: string, field: string): string | undefined {
  // `custom_fields` itself is an object a CSV cell cannot be: a column goes to one of its keys.
  const fields: readonly string[] = (searchType === 'PEOPLE' ? PEOPLE_IMPORT_FIELDS : COMPANY_IMPORT_FIELDS).map((name) => (name === 'custom_fields' ? `${CUSTOM_FIELD_PREFIX}<key>` : name));
  if (fields.includes(field) && !field.startsWith(CUSTOM_FIELD_PREFIX)) return undefined;
  if (searchType === 'PEOPLE' && field.startsWith(CUSTOM_FIELD_PREFIX) && field.length > CUSTOM_FIELD_PREFIX.length) {
    const problem = customFieldKeyProblem(field.slice(CUSTOM_FIELD_PREFIX.length));
    return problem && `mapping: column '${column}' cannot go to '${field}': ${problem}`;
  }
  return `mapping: unknown field '${field}' for column '${column}'. Fields: ${fields.join(', ')}`;
}

/** A text field as the OpenAPI document shows it (numbers and booleans are taken as their text). */
const DOCUMENTED_TEXT = { type: ['string', 'number', 'boolean', 'null'] };
const DOCUMENTED_COMPANY = {
  type: 'object',
  properties: Object.fromEntries(COMPANY_FIELD_NAMES.map((field) => [field, DOCUMENTED_TEXT])),
};

/**
 * A JSON lead of a PEOPLE import (list or campaign) as the OpenAPI document shows it; the rules
 * the rows are read by are docs/lead-lists.md's ("Import").
 */
export const PEOPLE_LEAD_DOCUMENTED = {
  type: 'object',
  description:
    'A person: first_name, last_name, and network_profile_url or email. A row without them is not a 400: it is skipped, with its reason in `skipped`. Their company as `company` (an object) or as company_* fields. Unknown fields are ignored.',
  properties: {
    ...Object.fromEntries(PEOPLE_IMPORT_FIELDS.filter((field) => field !== 'custom_fields').map((field) => [field, DOCUMENTED_TEXT])),
    custom_fields: { type: ['object', 'null'], description: 'Your own fields, used by `{{custom.<key>}}` placeholders.' },
    company: DOCUMENTED_COMPANY,
  },
};

/**
 * A JSON lead of a campaign import: as a list's, but the campaign's steps need the profile URL,
 * so an email alone does not name the person (docs/campaigns.md).
 */
export const CAMPAIGN_LEAD_DOCUMENTED = {
  ...PEOPLE_LEAD_DOCUMENTED,
  description:
    'A person: first_name, last_name and network_profile_url (an email alone is not enough here). A row without them is not a 400: it is skipped, with its reason in `skipped`. Their company as `company` (an object) or as company_* fields. Unknown fields are ignored.',
};

/** A JSON lead of a COMPANY import as the OpenAPI document shows it. */
export const COMPANY_LEAD_DOCUMENTED = {
  ...DOCUMENTED_COMPANY,
  description: 'A company: a name, or a website whose domain then names it. Unknown fields are ignored.',
};
