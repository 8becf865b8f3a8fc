import { ConfigError, loadConfig } from '../../src/config.js';

/** The message of the ConfigError `environment` gets; anything else fails the test. */
export function configRefusal(environment: Record<string, string>): string {
  try {
    loadConfig(environment);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
