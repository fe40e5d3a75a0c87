import { checkOf, verificationOf } from '../../machines/verification.js';
import type { CommandPolicy } from '../../rules/command-policy.js';
import type { Rules } from '../../rules/schema.js';
import { jobTraceLine } from '../../tools/sandbox/jobs/job-lines.js';
import { createRunSandbox, planRunSandbox, type RunSandbox, type RunSandboxOptions, type RunSandboxPlan } from '../../tools/sandbox/run-sandbox.js';
import type { Tracer } from '../record/trace.js';
import type { RunOptions } from '../start-run.js';

/** The command policy the rules give; MCP servers and hooks run under the same one. */
export function policyOf(rules: Rules): CommandPolicy {
  return {
    deny: rules.permissions.deny,
    sandbox: rules.permissions.sandbox,
    network: rules.permissions.network,
    envAllow: rules.permissions.envAllow,
    readable: rules.permissions.readable,
    hidden: rules.permissions.hidden,
    limits: rules.permissions.limits,
    timeoutSeconds: rules.tools.commandTimeoutSeconds,
  };
}

/** The run's sandbox as planned: rules it cannot honour (a credential path in permissions.readable) throw here, before anything is written. */
interface PlannedSandbox {
  options: RunSandboxOptions;
  plan: RunSandboxPlan;
}

/** @example const planned = planSandbox(options, workspace); …; const sandbox = openSandbox(planned, trace); */
export function planSandbox(options: RunOptions, workspace: string): PlannedSandbox {
  const sandboxOptions: RunSandboxOptions & { jobsDir: string } = {
    root: workspace,
    policy: policyOf(options.rules),
    testCmd: options.testCmd,
    isCheck: (command) => checkOf(command, verificationOf(options.rules), options.testCmd) !== null,
    protectedFiles: options.configPath ? [options.configPath] : [],
    jobsDir: options.runDir,
  };
  return { options: sandboxOptions, plan: planRunSandbox(sandboxOptions) };
}

/** One sandbox for the whole run, commands and background jobs; each job's start and end is a trace line. */
export function openSandbox(planned: PlannedSandbox, trace: Tracer): RunSandbox {
  return createRunSandbox({ ...planned.options, onJob: (job) => trace.log('job', jobTraceLine(job)) }, planned.plan);
}
