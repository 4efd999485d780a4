import { describe, expect, it } from 'vitest';
import { networkIdentifier, toConnectionStatus } from '../../../shared/domain/connections/connection-status';
import { senderTypeFor } from '../../../shared/domain/sender-accounts/sender-account';
import { isActiveStatus } from '../../../shared/domain/providers/provider';

describe('network identifiers from profile URLs', () => {
  it.each([
    ['https://www.linkedin.com/in/alex-doe/', 'alex-doe'],
    ['https://www.linkedin.com/in/alex-doe', 'alex-doe'],
    ['https://linkedin.com/in/alex-doe/?utm=x#y', 'alex-doe'],
    ['https://www.linkedin.com/in/j%C3%BCrgen-m/', 'jürgen-m'],
    ['https://network.example/profiles/alex-doe', 'alex-doe'],
    ['  https://www.linkedin.com/in/alex-doe/  ', 'alex-doe'],
  ])('%s -> %s', (url, slug) => {
    expect(networkIdentifier(url)).toBe(slug);
  });

  it.each(['', 'alex-doe', 'https://www.linkedin.com/', 'ftp://x/in/alex', 'https://x/in/%E0%A4%A'])('%j has none', (url) => {
    expect(networkIdentifier(url)).toBeUndefined();
  });
});

describe('connection status', () => {
  const profile = { providerId: 'ACo1', publicIdentifier: 'a', firstName: null, lastName: null, invitationPending: false };

  it('connects first degree only, and maps levels', () => {
    expect(toConnectionStatus({ ...profile, networkDistance: 'FIRST_DEGREE' }, 5)).toEqual({
      isConnected: true,
      connectionLevel: 1,
      networkDistance: 'FIRST_DEGREE',
      checkedWithAccountId: 5,
    });
    expect(toConnectionStatus({ ...profile, networkDistance: 'SECOND_DEGREE', invitationPending: true }, 5)).toEqual({
      isConnected: false,
      connectionLevel: 2,
      networkDistance: 'SECOND_DEGREE',
      checkedWithAccountId: 5,
    });
    expect(toConnectionStatus({ ...profile, networkDistance: 'OUT_OF_NETWORK' }, 5)).toEqual({
      isConnected: false,
      connectionLevel: null,
      networkDistance: 'OUT_OF_NETWORK',
      checkedWithAccountId: 5,
    });
    expect(toConnectionStatus({ ...profile, networkDistance: null }, 5)).toEqual({
      isConnected: false,
      connectionLevel: null,
      networkDistance: null,
      checkedWithAccountId: 5,
    });
  });

  it('counts the four documented statuses as active', () => {
    for (const status of ['OK', 'SYNC_SUCCESS', 'CREATION_SUCCESS', 'RECONNECTED']) expect(isActiveStatus(status), status).toBe(true);
    for (const status of ['CREDENTIALS', 'ERROR', 'STOPPED', 'CONNECTING', 'PERMISSIONS', 'DELETED', 'CREATION_FAIL']) {
      expect(isActiveStatus(status), status).toBe(false);
    }
  });

  it('sends through network accounts and mailboxes only', () => {
    expect(senderTypeFor('LINKEDIN')).toBe('NETWORK');
    for (const type of ['MAIL', 'GOOGLE_OAUTH', 'OUTLOOK', 'ICLOUD', 'EXCHANGE']) expect(senderTypeFor(type), type).toBe('EMAIL');
    for (const type of ['WHATSAPP', 'TELEGRAM', 'SLACK']) expect(senderTypeFor(type), type).toBeUndefined();
  });
});
