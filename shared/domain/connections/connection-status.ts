import type { NetworkDistance, ProviderProfile } from '../providers/provider';
import { legacyProfileMember } from '../leads/normalize';

/** Spec: Connection status. Only first degree is connected; a pending invitation is not. */
export interface ConnectionStatus {
  isConnected: boolean;
  connectionLevel: 1 | 2 | 3 | null;
  networkDistance: NetworkDistance | null;
  checkedWithAccountId: number;
}

const LEVELS: Record<NetworkDistance, 1 | 2 | 3 | null> = {
  FIRST_DEGREE: 1,
  SECOND_DEGREE: 2,
  THIRD_DEGREE: 3,
  OUT_OF_NETWORK: null,
};

export function toConnectionStatus(profile: ProviderProfile, accountId: number): ConnectionStatus {
  const distance = profile.networkDistance;
  return {
    isConnected: distance === 'FIRST_DEGREE',
    connectionLevel: distance === null ? null : LEVELS[distance],
    networkDistance: distance,
    checkedWithAccountId: accountId,
  };
}

/**
 * The identifier the provider takes for a profile URL: the slug after `/in/` (or the last path
 * segment), URL-decoded. undefined when the URL holds none.
 */
export function networkIdentifier(profileUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(profileUrl.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  const segments = url.pathname.split('/').filter(Boolean);
  const afterIn = segments.indexOf('in');
  const legacyMember = legacyProfileMember(url);
  const raw = legacyMember !== undefined ? encodeURIComponent(legacyMember) : afterIn >= 0 ? segments[afterIn + 1] : segments[segments.length - 1];
  if (!raw) return undefined;
  let slug: string;
  try {
    slug = decodeURIComponent(raw).trim();
  } catch {
    return undefined;
  }
  // A Sales Navigator lead URL's segment is the member id, then its search's tokens: `ACwAA...,NAME_SEARCH,x`.
  slug = slug.split(',')[0] ?? '';
  return slug.length > 0 && slug.length <= 200 && !/[/?#\s]/.test(slug) ? slug : undefined;
}

export const toConnectionStatusView = (status: ConnectionStatus) => ({
  success: true,
  is_connected: status.isConnected,
  connection_level: status.connectionLevel,
  network_distance: status.networkDistance,
  checked_with_account_id: status.checkedWithAccountId,
});
