/**
 * Key builders: the only place that knows how items are keyed, one file per area under keys/.
 * These strings are a persisted contract.
 */
export { padId } from './keys/key-parts';
export * from './keys/identity';
export * from './keys/leads';
export * from './keys/accounts';
export * from './keys/campaigns';
export * from './keys/conversations';
export * from './keys/analytics';
export * from './keys/credits';
