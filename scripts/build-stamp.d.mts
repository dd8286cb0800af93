// Types for build-stamp.mjs (imported by test/cli/build-stamp.test.ts).
export declare const STAMP_PATH: string;
export declare function sourceStamp(root: string): string;
export declare function builtStamp(root: string): string | undefined;
