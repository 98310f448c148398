/** bin/v8-flags.mjs */
export declare const V8_FLAGS: string;
