import { PROVIDER } from './conventions.js';

export interface EndpointFacts {
  provider: string;
  address?: string;
  port?: number;
}

/**
 * The provider and server of a run's model, from the endpoint description
 * its start line carries (`openai-compatible endpoint http://…/v1`, or the
 * offline scripted model's words, which hold no URL).
 *
 * @example endpointFacts('openai-compatible endpoint http://localhost:8000/v1') // { provider: 'openai', address: 'localhost', port: 8000 }
 */
export function endpointFacts(description: string | undefined): EndpointFacts {
  const url = description?.match(/\bhttps?:\/\/\S+/)?.[0];
  if (!url) return { provider: PROVIDER.scripted };
  try {
    const parsed = new URL(url);
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
    return { provider: PROVIDER.openai, address: parsed.hostname, port };
  } catch {
    return { provider: PROVIDER.openai };
  }
}
