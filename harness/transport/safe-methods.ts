/**
 * Methods that change no state by definition (RFC 9110 9.2.1) and that the suite sends. On their own, so that what
 * reads them without sending requests (the schema registry, and through it the embedded reference's thread) does not
 * load the HTTP client and undici with them.
 */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);
