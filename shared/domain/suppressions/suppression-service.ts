import type { Clock } from '../../time/clock';
import { notFound, validationError } from '../errors';
import type { IdGenerator } from '../ports';
import type { SuppressionStore } from './ports';
import {
  SUPPRESSIONS_PAGE_SIZE,
  type Suppression,
  type SuppressionReason,
  type SuppressionType,
  suppressionDomain,
  suppressionEmail,
  suppressionKeysOf,
} from './suppression';

export interface SuppressionDeps {
  store: SuppressionStore;
  ids: IdGenerator;
  clock: Clock;
}

export interface AddRequest {
  emails?: readonly string[];
  domains?: readonly string[];
  reason: SuppressionReason;
  /** Where it came from (an unsubscribe or a bounce). */
  prospectId?: number;
  campaignId?: number;
}

/** A page cursor: the last id of the page, base64url-encoded. */
const encodeCursor = (id: number) => Buffer.from(String(id)).toString('base64url');
function decodeCursor(cursor: string): number {
  const text = /^[A-Za-z0-9_-]{1,24}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const id = /^[0-9]{1,16}$/.test(text) ? Number(text) : 0;
  if (!Number.isSafeInteger(id) || id < 1) throw validationError('cursor is not valid');
  return id;
}

/**
 * The workspace suppression list: what unsubscribes and hard bounces put there (the engine and the
 * unsubscribe endpoint), what users manage through the API, and the one check every email step
 * makes before it is sent (`check`: one BatchGetItem of two keys, the address and its domain).
 */
export function createSuppressions(deps: SuppressionDeps) {
  return {
    /**
     * Puts values on the list (normalized lowercase; a value already there keeps its entry and
     * reason). Values that are not an address or a domain are left out; callers that must refuse
     * them check first (the API's schema does).
     */
    async add(workspaceId: number, request: AddRequest): Promise<{ added: Suppression[]; existing: Suppression[] }> {
      const wanted = new Map<string, { type: SuppressionType; value: string }>();
      for (const email of request.emails ?? []) {
        const value = suppressionEmail(email);
        if (value) wanted.set(`EMAIL:${value}`, { type: 'EMAIL', value });
      }
      for (const domain of request.domains ?? []) {
        const value = suppressionDomain(domain);
        if (value) wanted.set(`DOMAIN:${value}`, { type: 'DOMAIN', value });
      }
      if (wanted.size === 0) return { added: [], existing: [] };
      const values = [...wanted.values()];
      const found = await deps.store.find(workspaceId, values);
      const existing = new Map(found.map((entry) => [`${entry.type}:${entry.value}`, entry]));
      const createdAt = deps.clock.now().toISOString();
      const missing = values.filter((item) => !existing.has(`${item.type}:${item.value}`));
      await deps.ids.reserve?.(missing.length);
      const entries: Suppression[] = [];
      for (const item of missing) {
        entries.push({
          id: await deps.ids.next(),
          workspaceId,
          ...item,
          reason: request.reason,
          prospectId: request.prospectId ?? null,
          campaignId: request.campaignId ?? null,
          createdAt,
        });
      }
      // Many conditional writes a call: 1,000 values are 20 transactions, well inside the function's timeout.
      const raced = await deps.store.putMany(entries);
      const lost = new Set(raced);
      const added = entries.filter((entry) => !lost.has(entry));
      // A value another request put there meanwhile: its entry is the one that stands.
      const late = raced.length > 0 ? await deps.store.find(workspaceId, raced) : [];
      const order = (entries: Suppression[]) => entries.sort((a, b) => a.id - b.id);
      return { added: order(added), existing: order([...existing.values(), ...late]) };
    },

    /**
     * The entry that suppresses this address in the workspace (the address's own first), or
     * undefined. Read eventually consistently (half the price of every email step: both keys are
     * usually not there, which DynamoDB bills at the minimum): an entry added within the last
     * second may be missed. What that can let through is narrow: an unsubscribe or a hard bounce
     * stops the prospect's own sequence (its action is deleted first), and an address belongs to
     * one prospect of the workspace; it is an entry added by hand while a step of that address or
     * domain is about to go out.
     */
    async check(workspaceId: number, email: string, options: { consistent?: boolean } = {}): Promise<Suppression | undefined> {
      const keys = suppressionKeysOf(email);
      if (keys.length === 0) return undefined;
      const found = await deps.store.find(workspaceId, keys, { consistent: options.consistent ?? false });
      return found.find((entry) => entry.type === 'EMAIL') ?? found[0];
    },

    async list(workspaceId: number, cursor: string | undefined): Promise<{ entries: Suppression[]; nextCursor: string | null }> {
      const after = cursor === undefined || cursor === '' ? undefined : decodeCursor(cursor);
      const page = await deps.store.page(workspaceId, after, SUPPRESSIONS_PAGE_SIZE);
      const last = page.entries.at(-1);
      return { entries: page.entries, nextCursor: page.more && last ? encodeCursor(last.id) : null };
    },

    /** Takes an entry off the list: later emails to it go out again. */
    async remove(workspaceId: number, id: number): Promise<Suppression> {
      const entry = await deps.store.get(workspaceId, id);
      if (!entry || !(await deps.store.remove(entry))) throw notFound('Suppression not found');
      return entry;
    },
  };
}

export type Suppressions = ReturnType<typeof createSuppressions>;
