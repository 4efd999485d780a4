import type { OutreachAction } from '../../shared/domain/engine/action';

/** An outreach action for unit tests of the engine's pure logic: written once, on node 10, nothing pending; `fields` override. */
export const actionWith = (at: string, fields: Partial<OutreachAction> = {}): OutreachAction => ({
  campaignId: 1,
  prospectId: 1,
  workspaceId: 1,
  stint: 'stint-1',
  version: 1,
  nodeId: 10,
  dueAt: at,
  parked: null,
  claim: null,
  reservation: null,
  attempts: 0,
  lastError: null,
  lastActionAt: null,
  reachedAt: null,
  waitingForDelay: false,
  alreadyConnected: false,
  answerLost: null,
  started: false,
  atEntry: false,
  done: [],
  accounts: {},
  networkProviderId: null,
  updatedAt: at,
  ...fields,
});
