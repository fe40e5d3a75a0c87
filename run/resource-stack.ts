/**
 * What a run has opened, released in reverse order: a step that owns a resource registers its release as soon as
 * the resource exists, so a throw in any later step (or the run's end) releases everything opened before it.
 *
 * @example const held = new ResourceStack(); const trace = held.own(openTracer(path), (t) => t.close()); …; await held.release();
 */
export class ResourceStack {
  private readonly releases: Array<{ name: string; release: () => unknown }> = [];
  private released: Promise<Error[]> | null = null;

  /** Registers `release` for `resource` and returns the resource. */
  own<T>(name: string, resource: T, release: (resource: T) => unknown): T {
    if (this.released) throw new Error(`the run's resources were already released; cannot own ${name}`);
    this.releases.push({ name, release: () => release(resource) });
    return resource;
  }

  /**
   * Releases everything, newest first; each release runs even when an earlier one threw or rejected. Resolves to
   * what failed (empty when everything was released); calling it again returns the same promise.
   */
  release(): Promise<Error[]> {
    this.released ??= (async () => {
      const failures: Error[] = [];
      for (const { name, release } of this.releases.reverse()) {
        try {
          await release();
        } catch (error) {
          failures.push(new Error(`releasing ${name}: ${error instanceof Error ? error.message : String(error)}`));
        }
      }
      return failures;
    })();
    return this.released;
  }
}
