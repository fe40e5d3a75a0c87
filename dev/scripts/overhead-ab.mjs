// Harness overhead of two builds side by side, in one process, runs interleaved (A B A B …) so the machine's
// load falls on both alike: node --expose-gc dev/scripts/overhead-ab.mjs <dist A> <dist B> [steps] [rounds]
// Each dist is a built rein (npm run build) — e.g. one from `git archive <commit>` — and the bench's own
// measureOverhead (bench/overhead.ts) times a run of `steps` instant-model steps, with and without saving state.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [distA, distB, stepsText = '1000', roundsText = '7'] = process.argv.slice(2);
if (!distA || !distB) {
  console.error('usage: node --expose-gc dev/scripts/overhead-ab.mjs <dist A> <dist B> [steps] [rounds]');
  process.exit(2);
}
const load = async (dist) => (await import(pathToFileURL(join(resolve(dist), 'bench/overhead.js')).href)).measureOverhead;
const sides = [
  { name: 'A', dist: distA, measure: await load(distA) },
  { name: 'B', dist: distB, measure: await load(distB) },
];
const steps = Number(stepsText);
const rounds = Number(roundsText);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const saveState of [false, true]) {
  const times = { A: [], B: [] };
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) times[side.name].push((await side.measure(steps, { saveState })).msPerStep);
  }
  const [a, b] = [median(times.A), median(times.B)];
  console.log(
    `${steps} steps, state ${saveState ? 'saved every step' : 'not saved'}: A ${a.toFixed(3)} ms/step, B ${b.toFixed(3)} ms/step (medians of ${rounds}); B / A = ${(b / a).toFixed(3)}`,
  );
}
for (const side of sides) console.log(`${side.name}: ${side.dist}`);
