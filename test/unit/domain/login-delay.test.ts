import { describe, expect, it } from 'vitest';
import { loginDelayMs } from '../../../shared/domain/accounts/login-throttle';
import { settingDefault } from '../../../shared/config/settings';

describe('login delay per (email, IP) pair', () => {
  const policy = {
    failuresBeforeDelay: settingDefault('loginFailuresBeforeDelay'),
    maxDelaySeconds: settingDefault('loginMaxDelaySeconds'),
    failuresPerIpPerHour: settingDefault('loginFailuresPerIpPerHour'),
  };

  it('keeps the documented defaults: 5 free failures, at most 15 minutes, 100 failures per address and hour', () => {
    expect(policy).toEqual({ failuresBeforeDelay: 5, maxDelaySeconds: 900, failuresPerIpPerHour: 100 });
  });

  it('is none for the first 4 failures, then 2^(failures - 5) seconds, capped at 15 minutes', () => {
    const seconds = Array.from({ length: 18 }, (_, i) => loginDelayMs(i + 1, policy) / 1000);
    expect(seconds).toEqual([0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900, 900]);
    // However many: 2^k turns Infinity long after the cap, and the cap holds.
    expect(loginDelayMs(5_000, policy)).toBe(900_000);
  });
});
