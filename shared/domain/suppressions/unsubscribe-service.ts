import type { SequenceStops } from '../engine/sequence-stop';
import type { Prospect } from '../leads/lead';
import type { UnsubscribeSubject, UnsubscribeTokens } from './ports';
import type { Suppressions } from './suppression-service';
import { suppressionEmail } from './suppression';

export interface UnsubscribeDeps {
  tokens: UnsubscribeTokens;
  suppressions: Pick<Suppressions, 'add'>;
  stops: Pick<SequenceStops, 'stop'>;
  leads: { getProspects(ids: number[]): Promise<Prospect[]> };
}

/**
 * The unsubscribe link of an email (docs/engine.md, "Unsubscribes and suppression"). `check`
 * only reads the token (the GET page changes nothing: mail software prefetches links);
 * `unsubscribe` (the RFC 8058 one-click POST, and the page's own button) puts the address the
 * email went to on the workspace's suppression list, then stops the prospect's sequence in the campaign
 * of the email (UNSUBSCRIBED). Both steps converge, so a repeated POST changes nothing more.
 */
export function createUnsubscribes(deps: UnsubscribeDeps) {
  return {
    /** Who the link is for; undefined for a token that is not one of ours. */
    check: (token: string): UnsubscribeSubject | undefined => deps.tokens.verify(token),

    /** undefined for a token that is not one of ours. */
    async unsubscribe(token: string): Promise<{ suppressed: boolean; stopped: boolean } | undefined> {
      const subject = deps.tokens.verify(token);
      if (!subject) return undefined;
      const [found] = await deps.leads.getProspects([subject.prospectId]);
      const prospect = found && found.workspaceId === subject.workspaceId ? found : undefined;
      // The address the email went to, which the link names; a link of before 2026-11-28 names
      // none, and the prospect's address is taken (it may have changed since the email).
      const sentTo = subject.email ?? prospect?.email;
      const email = sentTo ? suppressionEmail(sentTo) : undefined;
      // The list first: whatever happens next, no later email goes to the address.
      if (email) await deps.suppressions.add(subject.workspaceId, { emails: [email], reason: 'UNSUBSCRIBED', prospectId: subject.prospectId, campaignId: subject.campaignId });
      // A prospect deleted since the email went out: nothing is left to stop.
      if (!prospect) return { suppressed: email !== undefined, stopped: false };
      const stop = await deps.stops.stop({
        workspaceId: subject.workspaceId,
        prospectId: prospect.id,
        status: 'UNSUBSCRIBED',
        reason: 'unsubscribed',
        campaignId: subject.campaignId,
      });
      return { suppressed: email !== undefined, stopped: stop.stopped };
    },
  };
}

export type Unsubscribes = ReturnType<typeof createUnsubscribes>;
