/** The engine bench's parameters (bench/scenarios/engine.ts). */

/**
 * Prospects in the campaign and its list: 10,000, or `BENCH_ENGINE_PROSPECTS` for a quicker run
 * while iterating (`BENCH_ENGINE_PROSPECTS=1000 npm run bench -- engine`: one day, ~5 min). Costs
 * that read a list whole (its digest) grow with its size: compare with the full run.
 */
export const PROSPECTS = Number(process.env.BENCH_ENGINE_PROSPECTS ?? 10_000);
/**
 * EMAIL steps in the campaign's flow: 1, or `BENCH_ENGINE_STEPS` (at most 5) for a longer sequence,
 * each after the one before by `STEP_DELAY_HOURS`. With more than one step the per-prospect writes
 * (its status at its first action and at its end, its first action's start) are shared by its
 * sends; the model column still prices the one-step path.
 */
export const STEPS = stepsFrom(process.env.BENCH_ENGINE_STEPS);

function stepsFrom(text: string | undefined): number {
  const steps = Number(text ?? 1);
  if (!Number.isInteger(steps) || steps < 1 || steps > 5) throw new Error(`BENCH_ENGINE_STEPS must be a whole number from 1 to 5, not ${text}`);
  return steps;
}
export const STEP_DELAY_HOURS = 1;
/** Sends the run should make: one per prospect and step. */
export const SENDS = PROSPECTS * STEPS;
export const stepsLabel = STEPS === 1 ? 'one EMAIL step' : `${STEPS} EMAIL steps (${STEP_DELAY_HOURS} h apart)`;
/** Import rows and add-to-campaign prospects per request (both maxima). */
export const PER_REQUEST = 1_000;
/** `email_max_messages`' maximum. */
export const CAP = 2_000;
/** Mailboxes at their maximum daily limit: together far above the campaign's cap. */
export const MAILBOXES = 5;
export const ACCOUNT_LIMIT = 2_000;
/**
 * Outreach consumers draining the queue at once (Lambda runs several; each handles 5 messages of
 * 10 actions, 8 at a time; the local runtime's poller runs one): the first pass with 4, each day's
 * sends with its own number, so the days show what more consumers at once do, and the last two
 * what one consumer does after that.
 */
export const FIRST_PASS_CONSUMERS = 4;
export const CONSUMERS_BY_DAY = [1, 2, 4, 1, 1];
/** A Monday, 00:00 UTC: the campaign is activated as its window opens. */
export const START = '2026-12-07T00:00:00.000Z';
/** Past the day's last slot (2,000 slots in 00:00-23:59 UTC: the last at 23:58:15), before the window closes. */
export const DAY_END = 'T23:58:30.000Z';
/** Scheduler and drain rounds per moment of the clock (the second finds nothing when the engine settled). */
export const ROUNDS = 4;
/** After the last day: past the claim timeout (10 min) and the full sweep (15 min), for claims a failed action left. */
export const SETTLE_STEP_MS = 16 * 60_000;
export const KB = 1024;

/** A deterministic prospect with an email: 500 distinct companies. */
export function lead(n: number) {
  const company = n % 500;
  return {
    first_name: `First${n % 97}`,
    last_name: `Last ${n}`,
    network_profile_url: `https://www.linkedin.com/in/engine-bench-${n}`,
    email: `ebench${n}@company${company}.example`,
    job_title: ['CTO', 'VP Sales', 'Head of Marketing', 'Account Manager'][n % 4],
    location: ['Amsterdam', 'Berlin', 'Paris', 'London', 'Madrid'][n % 5],
    company_name: `Engine Company ${company}`,
    company_website_url: `https://engine-company${company}.example`,
  };
}
