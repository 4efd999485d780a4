import type { AccountRepository } from '../accounts/ports';
import { forbidden, validationError } from '../errors';

/**
 * The app host's `workspace_id` rules (spec 3.9, 3.10): omitted means the caller's current
 * workspace, a number that workspace if the user is linked to it, `ALL` every linked workspace
 * (ascending). A workspace the user is not linked to is 403, whether or not it exists.
 */
export async function selectWorkspaces(
  memberships: Pick<AccountRepository, 'listMemberships'>,
  userId: number,
  currentWorkspaceId: number,
  workspace: string | undefined,
): Promise<number[]> {
  const selector = workspace?.trim();
  if (selector === undefined || selector === '') return [currentWorkspaceId];
  const linked = (await memberships.listMemberships(userId)).map((membership) => membership.workspaceId);
  if (selector.toUpperCase() === 'ALL') return linked.sort((a, b) => a - b);
  const workspaceId = /^[0-9]{1,16}$/.test(selector) ? Number(selector) : Number.NaN;
  // Past 2^53 - 1 a number is rounded to another (9007199254740993 read as ...992): no id, a 400.
  if (!Number.isSafeInteger(workspaceId)) throw validationError('workspace_id must be a workspace id or ALL');
  if (!linked.includes(workspaceId)) throw forbidden();
  return [workspaceId];
}
