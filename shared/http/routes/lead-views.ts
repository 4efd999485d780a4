import * as v from 'valibot';
import { Id, Timestamp } from './define';

/** API shapes of lead lists, prospects and companies (spec: Lead list, Prospect, Company). */
export const LeadListView = v.strictObject({
  id: Id,
  name: v.string(),
  description: v.string(),
  total_prospects: v.pipe(v.number(), v.integer(), v.minValue(0)),
  status: v.picklist(['DRAFT', 'ACTIVE']),
  search_type: v.picklist(['PEOPLE', 'COMPANY']),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const companyFields = {
  id: Id,
  name: v.string(),
  website_url: v.string(),
  network_url: v.string(),
  industry: v.string(),
  location: v.string(),
  amount_of_employees: v.string(),
};

export const CompanyView = v.strictObject({ ...companyFields, logo_url: v.string(), revenue: v.string() });

/** A prospect's company as lead pages show it: the company view without logo and revenue. */
export const CompanySummaryView = v.strictObject(companyFields);

export const ProspectView = v.strictObject({
  id: Id,
  first_name: v.string(),
  last_name: v.string(),
  email: v.string(),
  phone_number: v.string(),
  network_profile_url: v.string(),
  job_title: v.string(),
  location: v.string(),
  headline: v.string(),
  industry: v.string(),
  profile_picture_url: v.string(),
  custom_fields: v.record(v.string(), v.unknown()),
  status: v.string(),
  /** The campaign the prospect is in, or null. */
  campaign_id: v.nullable(Id),
  company: v.nullable(CompanySummaryView),
  created_at: Timestamp,
  updated_at: Timestamp,
});
