import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cookbookRecipes } from '../../../dev/docs-sections/docs-sections.js';
import { checkCoverage } from '../../../testing/coverage/check.js';
import { createHarnessMachine, loadRules, rulesSchema } from '../../../testing/index.js';
import { repoRoot } from '../../helpers/cli.js';

const cookbook = join(repoRoot, 'docs', 'cookbook');
// recipes.json is the cookbook's index (titles and notes), not a rules file.
const INDEX = 'recipes.json';
const rulesFiles = readdirSync(cookbook)
  .filter((name) => name !== INDEX)
  .sort();

// Each check explores a few thousand states: seconds alone, much longer on a loaded two-core machine.
describe('model-based coverage is complete for every rules file in docs/cookbook', { timeout: 240_000 }, () => {
  it('the index lists every rules file of the folder', () => {
    expect(rulesFiles.length).toBeGreaterThanOrEqual(8);
    expect(
      cookbookRecipes()
        .map((recipe) => recipe.file)
        .sort(),
    ).toEqual(rulesFiles);
  });

  for (const file of rulesFiles) {
    it(file, async () => {
      const { rules } = await loadRules({ configPath: join(cookbook, file) });
      const { problems, text } = await checkCoverage(createHarnessMachine(rules), rules, file);
      expect(problems, text).toEqual([]);
    });
  }

  it("a check's pass pattern and exit code are what the witnesses' passing runs give; a pattern with no example is named as the reason", async () => {
    const passing = rulesSchema.parse({
      verification: { passExitCode: 3, passPattern: '^Ran \\d+ tests?$', checks: [{ name: 'lint', command: 'npm run lint', passPattern: '^0 problems' }] },
    });
    expect((await checkCoverage(createHarnessMachine(passing), passing)).problems).toEqual([]);
    const unmatched = rulesSchema.parse({ verification: { checks: [{ name: 'lint', command: 'npm run lint', passPattern: '^0 problems$x' }] } });
    const { problems } = await checkCoverage(createHarnessMachine(unmatched), unmatched);
    expect(problems.filter((problem) => problem.startsWith('not covered:'))).toEqual(
      ['plan', 'build', 'verify', 'fix'].map((phase) =>
        expect.stringMatching(new RegExp(`^not covered: ${phase}\\.gate .*--> done .*pass pattern of lint: /\\^0 problems\\$x/`)),
      ),
    );
    expect(problems).toContain('unreachable state: done');
  });
});
