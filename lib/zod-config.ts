import { z } from 'zod';

/**
 * Makes zod check data by walking each schema instead of first compiling a checking function for it with
 * `new Function`: the compile costs more than it saves in a process that parses each schema a few times (a `rein`
 * command parses its rules once). The results are the same either way.
 *
 * @example parseSchemasWithoutCompiling(); rulesSchema.parse(input);
 */
export function parseSchemasWithoutCompiling(): void {
  z.config({ jitless: true });
}
