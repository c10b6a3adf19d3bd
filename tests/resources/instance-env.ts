/**
 * Imported first by the Instance provider tests: the simulator's operations take 50 ms, so waits poll
 * every 20 ms instead of the production 250 ms (the schedule is read once, when poll.ts loads).
 */
process.env.VMHOST_POLL_FAST_MS ??= "20";
process.env.VMHOST_POLL_MAX_MS ??= "200";
// an operation cancelled in the panel is said after 0.5 s idle, not 10 s (wait/instance.ts OUTCOME_GRACE_MS)
process.env.VMHOST_OUTCOME_GRACE_MS ??= "500";
export {};
