import { describe, expect, it } from 'vitest';
import { profileHandle } from '../../../shared/providers/enrichment/finders';

describe('profileHandle', () => {
  it('takes the part after /in/, lower-cased, whatever the host, slash, query or encoding', () => {
    expect(profileHandle('https://www.linkedin.com/in/ada-lovelace')).toBe('ada-lovelace');
    expect(profileHandle('https://linkedin.com/in/Ada-Lovelace/')).toBe('ada-lovelace');
    expect(profileHandle('https://www.linkedin.com/in/ada?trk=x#top')).toBe('ada');
    expect(profileHandle('https://www.linkedin.com/in/j%C3%BCrgen')).toBe('jürgen');
    // A member id keeps its case (the provider knows it only so).
    expect(profileHandle('https://www.linkedin.com/in/ACoAABcDeFg_hIj')).toBe('ACoAABcDeFg_hIj');
  });

  it('has none for a URL without /in/ or no URL', () => {
    expect(profileHandle('https://www.linkedin.com/company/acme')).toBeUndefined();
    expect(profileHandle(undefined)).toBeUndefined();
  });

  it('keeps a handle with a malformed escape as written', () => {
    expect(profileHandle('https://www.linkedin.com/in/ada%E0%A4')).toBe('ada%e0%a4');
  });
});
