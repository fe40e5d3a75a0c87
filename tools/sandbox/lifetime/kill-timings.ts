/**
 * How long rein waits before it escalates when it ends processes, in one place: a command's group, the run's
 * supervisor and sandbox, background jobs, and eval workers.
 */

/** Between SIGTERM and SIGKILL of a command's or a job's process group (also handed to the supervisor). */
export const KILL_GRACE_MS = 1_000;
/** How often a dying group is looked at while the grace runs. */
export const KILL_POLL_MS = 25;
/** How long output may keep arriving after a command's group is gone (a daemon that escaped it). */
export const OUTPUT_DRAIN_MS = 500;
/** How long stopped jobs get to be reported ended: the grace, then time for the report on a loaded machine. */
export const JOB_STOP_WAIT_MS = KILL_GRACE_MS + 2_000;
/**
 * How long a stopped command may take to be reported after its group was killed, before the sandbox is taken as
 * stuck and killed (generous: a loaded machine is slow, and a restart loses the jobs).
 */
export const COMMAND_SETTLE_MS = KILL_GRACE_MS + 14_000;
/** How long the supervisor gets to exit after its stdin is closed, before its group is killed. */
export const SUPERVISOR_CLOSE_MS = 2_000;

/** Seconds an eval worker gets past a phase's own limit before it is killed (the harness normally ends itself first). */
export const WORKER_KILL_GRACE_S = 5;
/** Between SIGTERM and SIGKILL of an eval worker's process group. */
export const WORKER_TERM_GRACE_MS = 2_000;
/** How long `rein worker` lets a stopped job's run end before it exits. */
export const WORKER_STOP_GRACE_MS = 1_500;
