import { expect } from 'vitest';
import { ConfigError } from '../../harness/config.js';

/** The message of the ConfigError that `f` throws (the test fails when it throws nothing or something else). */
export const errorOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
};
