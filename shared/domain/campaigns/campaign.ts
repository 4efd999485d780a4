import { isDeepStrictEqual } from 'node:util';
import { conflict, validationError } from '../errors';
import type { FlowStructure } from './flow';

/**
 * Campaigns: their settings, their status machine and their API shapes. The flow of steps and
 * conditions is shared/domain/campaigns/flow.ts; decisions are written in docs/campaigns.md.
 */

export const CAMPAIGN_STATUSES = ['DRAFT', 'ACTIVE', 'PAUSED', 'COMPLETED', 'ARCHIVED'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export interface DayWindow {
  enabled: boolean;
  /** `HH:MM`, 24-hour, in the campaign's timezone. */
  start: string;
  end: string;
}
/** Only the days given; `{}` means the default window (Monday to Friday, 09:00–17:00). */
export type SendingWindow = Partial<Record<Weekday, DayWindow>>;

export const CAMPAIGN_DEFAULTS = {
  timezone: 'Europe/Amsterdam',
  language: 'en',
  emailMaxMessages: 40,
  networkMaxMessages: 100,
  networkMaxConnections: 50,
  stopOnCompanyReply: false,
} as const;

/**
 * The largest daily caps a campaign accepts, from what the senders allow: a Google Workspace
 * mailbox sends at most 2,000 emails a day; the network provider recommends at most 80–100
 * invitations a day per account (providers.md 1.9), and messages are kept at the same order.
 */
export const MAX_DAILY_CAPS = {
  email_max_messages: 2000,
  network_max_messages: 150,
  network_max_connections: 100,
} as const;

export const CAMPAIGN_LIMITS = {
  maxNameLength: 200,
  /** Sender accounts attached to one campaign. */
  maxAccounts: 20,
  /** Steps and conditions of one campaign's flow (a detail read stays one small Query). */
  maxNodes: 50,
} as const;

export interface Campaign {
  id: number;
  workspaceId: number;
  name: string;
  status: CampaignStatus;
  timezone: string;
  language: string;
  emailMaxMessages: number;
  networkMaxMessages: number;
  networkMaxConnections: number;
  sendingWindow: SendingWindow;
  /** Sender accounts of the workspace the campaign sends from. */
  accountIds: number[];
  /** A reply also ends the sequences of the replier's colleagues (same company) in this campaign. */
  stopOnCompanyReply: boolean;
  /** Prospects in the campaign, moved in the same transactions as they are. */
  prospectCount: number;
  flow: FlowStructure;
  /** Incremented on every change of the flow's structure; structure writes are conditional on it. */
  flowVersion: number;
  createdAt: string;
  updatedAt: string;
  /**
   * When it was last made, or asked again to be, ACTIVE: the prospects waiting in it that were
   * added before are being scheduled (the campaign-scheduling sweep). Absent until its first
   * activation (and on campaigns activated before 2026-11-28).
   */
  activatedAt?: string;
}

/** What PATCH may change. */
export interface CampaignSettings {
  name?: string;
  timezone?: string;
  language?: string;
  emailMaxMessages?: number;
  networkMaxMessages?: number;
  networkMaxConnections?: number;
  sendingWindow?: SendingWindow;
  accountIds?: number[];
  stopOnCompanyReply?: boolean;
}

/** Whether the campaign has prospects whose actions may be waiting on its pacing: ACTIVE or PAUSED, with prospects (what a `repace` sweep is for). */
export const hasRunningProspects = (campaign: Campaign): boolean => (campaign.status === 'ACTIVE' || campaign.status === 'PAUSED') && campaign.prospectCount > 0;

/**
 * Whether a settings change may let actions waiting on the campaign's pacing go sooner: a cap
 * raised, the window or timezone changed, or a sender account attached or detached (a prospect
 * that waited for a detached account's limit goes through another). The sweep (scheduling.ts
 * `repace`) then has the sender place them again. A cap lowered needs none: a send past it waits
 * when its slot comes.
 */
export function pacingLoosened(before: Campaign, after: Campaign): boolean {
  return (
    after.emailMaxMessages > before.emailMaxMessages ||
    after.networkMaxMessages > before.networkMaxMessages ||
    after.networkMaxConnections > before.networkMaxConnections ||
    after.timezone !== before.timezone ||
    !isDeepStrictEqual(after.sendingWindow, before.sendingWindow) ||
    after.accountIds.some((id) => !before.accountIds.includes(id)) ||
    before.accountIds.some((id) => !after.accountIds.includes(id))
  );
}

/** The status changes a caller asks for, each at its own path. */
export type StatusAction = 'activate' | 'pause' | 'resume' | 'archive';

/**
 * The status a campaign moves to, or a 409 naming its current status. Asking for the status it
 * already has returns that status (a retry is harmless); activate on PAUSED is resume, and
 * activate on COMPLETED makes it ACTIVE again (new prospects may have arrived).
 */
export function nextStatus(current: CampaignStatus, action: StatusAction): CampaignStatus {
  const allowed: Record<StatusAction, { from: CampaignStatus[]; to: CampaignStatus }> = {
    activate: { from: ['DRAFT', 'ACTIVE', 'PAUSED', 'COMPLETED'], to: 'ACTIVE' },
    resume: { from: ['PAUSED', 'ACTIVE'], to: 'ACTIVE' },
    pause: { from: ['ACTIVE', 'PAUSED'], to: 'PAUSED' },
    archive: { from: ['DRAFT', 'ACTIVE', 'PAUSED', 'COMPLETED', 'ARCHIVED'], to: 'ARCHIVED' },
  };
  const rule = allowed[action];
  if (!rule.from.includes(current)) throw conflict(`Cannot ${action} a campaign that is ${current}`);
  return rule.to;
}

/** Archived campaigns are read-only. */
export function assertWritable(campaign: Campaign): void {
  if (campaign.status === 'ARCHIVED') throw conflict('Campaign is archived');
}

/** Structure changes (insert, move, delete) only while nothing is being sent from the flow. */
export function assertStructureEditable(campaign: Campaign): void {
  assertWritable(campaign);
  if (campaign.status !== 'DRAFT' && campaign.status !== 'PAUSED') {
    // Only an ACTIVE campaign can be paused: a COMPLETED one is activated first (then paused).
    const how = campaign.status === 'COMPLETED' ? 'activate it and pause it first' : 'pause it first';
    throw conflict(`The flow of a campaign that is ${campaign.status} cannot change; ${how}`);
  }
}

/**
 * Zones ICU still names by the names IANA has since replaced (CLDR keeps its identifiers stable):
 * ICU's name -> IANA's. Those of ICU's zones that the tz database lists as links, to a zone ICU
 * resolves back to the same name (derived from tzdata 2025 with ICU 78; since 2026-11-29 also
 * checked against a full build of the database: every zone of it that ICU resolves to another
 * name, other than the POSIX-style ones such as EST5EDT).
 */
const IANA_NAME_OF_ICU_NAME: ReadonlyMap<string, string> = new Map([
  // Four the first table left out (a probe, 2026-11-29): tz zones of their own in a full build of
  // the database (Debian's /usr/share/zoneinfo/tzdata.zi), links in its default one.
  ['Africa/Asmera', 'Africa/Asmara'],
  ['America/Coral_Harbour', 'America/Atikokan'],
  ['Pacific/Ponape', 'Pacific/Pohnpei'],
  ['Pacific/Truk', 'Pacific/Chuuk'],
  ['America/Buenos_Aires', 'America/Argentina/Buenos_Aires'],
  ['America/Catamarca', 'America/Argentina/Catamarca'],
  ['America/Cordoba', 'America/Argentina/Cordoba'],
  ['America/Godthab', 'America/Nuuk'],
  ['America/Indianapolis', 'America/Indiana/Indianapolis'],
  ['America/Jujuy', 'America/Argentina/Jujuy'],
  ['America/Louisville', 'America/Kentucky/Louisville'],
  ['America/Mendoza', 'America/Argentina/Mendoza'],
  ['Asia/Calcutta', 'Asia/Kolkata'],
  ['Asia/Katmandu', 'Asia/Kathmandu'],
  ['Asia/Rangoon', 'Asia/Yangon'],
  ['Asia/Saigon', 'Asia/Ho_Chi_Minh'],
  ['Atlantic/Faeroe', 'Atlantic/Faroe'],
  ['Europe/Kiev', 'Europe/Kyiv'],
  ['Pacific/Enderbury', 'Pacific/Kanton'],
]);

/**
 * The IANA zone's canonical name, or a 400. `Intl` knows the zones of the runtime's ICU data and
 * resolves links (`US/Eastern` -> `America/New_York`); where ICU keeps a name IANA has replaced
 * (`Asia/Kolkata` -> `Asia/Calcutta`), IANA's current name is given instead.
 */
export function canonicalTimezone(timezone: string): string {
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
    return IANA_NAME_OF_ICU_NAME.get(resolved) ?? resolved;
  } catch {
    throw validationError(naming(TIMEZONE_MESSAGE)({ input: timezone }));
  }
}

export const LANGUAGE_MESSAGE = 'language must be a language code such as en, nl or pt-BR';
export const TIMEZONE_MESSAGE = 'timezone must be an IANA time zone name such as Europe/Amsterdam';

/** A refusal that names the text refused (its first 60 characters), as every check of that field says it. */
export const naming =
  (message: string) =>
  (issue: { input: unknown }): string =>
    `${message}, got "${String(issue.input).slice(0, 60)}"`;

/**
 * The language code as BCP 47 writes it (`en-us` -> `en-US`, `iw` -> `he`), or a 400. The
 * language must be one ICU names (`zz` is none), and its optional second part a region
 * (`pt-BR`, `es-419`) or a script (`zh-Hant`) that ICU names, not an unknown one (`ZZ`, `Zzzz`).
 */
export function canonicalLanguage(language: string): string {
  // Made here, not when the module loads: only a PATCH of the language needs them.
  const named = (type: Intl.DisplayNamesType, code: string) => new Intl.DisplayNames(['en'], { type, fallback: 'none' }).of(code) !== undefined;
  try {
    const locale = new Intl.Locale(Intl.getCanonicalLocales(language)[0] as string);
    const tag = locale.toString();
    const known =
      named('language', locale.language) &&
      tag.split('-').length === 1 + (locale.region ? 1 : 0) + (locale.script ? 1 : 0) &&
      (!locale.region || (locale.region !== 'ZZ' && named('region', locale.region))) &&
      (!locale.script || (locale.script !== 'Zzzz' && named('script', locale.script)));
    if (known) return tag;
  } catch {
    // Not a BCP 47 tag, or one ICU cannot name (`und`): refused below.
  }
  throw validationError(naming(LANGUAGE_MESSAGE)({ input: language }));
}

/**
 * `name`, `name (2)`, `name (3)`, ...: the n-th name a new campaign may take when the former are used.
 * The name is shortened to make room for the number, so that a numbered name is one a PATCH accepts
 * back (at most `CAMPAIGN_LIMITS.maxNameLength` characters); a cut never splits a surrogate pair.
 */
export function numberedName(base: string, n: number): string {
  if (n <= 1) return base;
  const suffix = ` (${n})`;
  let end = Math.min(base.length, CAMPAIGN_LIMITS.maxNameLength - suffix.length);
  const last = base.charCodeAt(end - 1);
  if (end < base.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${base.slice(0, end).trimEnd()}${suffix}`;
}

/** Spec "Campaign" (list, create and PATCH answers). */
export function toCampaignView(campaign: Campaign) {
  return {
    id: campaign.id,
    name: campaign.name,
    status: campaign.status,
    workspace_id: campaign.workspaceId,
    timezone: campaign.timezone,
    language: campaign.language,
    email_max_messages: campaign.emailMaxMessages,
    network_max_messages: campaign.networkMaxMessages,
    network_max_connections: campaign.networkMaxConnections,
    sending_window: campaign.sendingWindow,
    account_ids: campaign.accountIds,
    stop_on_company_reply: campaign.stopOnCompanyReply,
    prospect_count: campaign.prospectCount,
    created_at: campaign.createdAt,
    updated_at: campaign.updatedAt,
  };
}

/** Spec 3.9: the campaign list on the app host, exactly these fields. */
export function toCampaignListItem(campaign: Campaign) {
  const { id, name, status, workspace_id, timezone, language, created_at, updated_at, prospect_count } = toCampaignView(campaign);
  return { id, name, status, workspace_id, timezone, language, created_at, updated_at, prospect_count };
}

/**
 * Prospect statuses (docs/campaigns.md has the machine). Outside any campaign a prospect is NEW
 * (or ARCHIVED); moved into a campaign it is IN_REVIEW until the engine contacts it.
 */
export const PROSPECT_STATUSES = [
  'NEW',
  'IN_REVIEW',
  'IN_PROGRESS',
  'REPLIED',
  'INTERESTED',
  'NOT_INTERESTED',
  'MEETING_SCHEDULED',
  'FINISHED',
  'BOUNCED',
  'UNSUBSCRIBED',
  'ARCHIVED',
  'Loading…',
] as const;
export type ProspectStatus = (typeof PROSPECT_STATUSES)[number];

/** The statuses of a prospect whose sequence is still to run or running (the engine may act for it). */
export const SEQUENCE_STATUSES: readonly ProspectStatus[] = ['IN_REVIEW', 'IN_PROGRESS'];
