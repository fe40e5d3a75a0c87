// V8's settings for what a rein command is: a process of seconds to hours whose time goes to waiting, system calls and
// V8's builtins (JSON, regular expressions, strings), not to hot JavaScript. Set at run time by the launcher, before
// the CLI loads; docs/benchmarks.md, section 16, measures them (the `node rein.js` row runs without the launcher).
//
// --interrupt-budget: V8 hands a function to its optimizing compiler once it has run so much bytecode. At 16 times the
//   default, only the functions that really are hot get compiled; with the default, the background compiles of
//   functions a run calls a few hundred times cost more CPU than the compiled code saved.
// --heap-growing-percent: after a full collection the old generation may grow by 150% of what it kept, not by up to
//   300%, so the garbage of a long run's requests (each a copy of the whole view) is collected before the RSS grows.
export const V8_TUNING = ['--interrupt-budget=1081344', '--heap-growing-percent=150'];

/** The tuning flags a process started with `execArgv` and `nodeOptions` should get: those the user did not set. */
export function tuningToApply(execArgv, nodeOptions) {
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].map((flag) => flag.split('=')[0].replace(/_/g, '-'));
  return V8_TUNING.filter((flag) => !given.includes(flag.split('=')[0]));
}
