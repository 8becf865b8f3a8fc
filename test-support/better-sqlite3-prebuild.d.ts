/**
 * The workspace's built better-sqlite3 binary as a prebuild-install archive, with the environment
 * that makes an npm install take it instead of compiling SQLite; see better-sqlite3-prebuild.js.
 */
export function localBetterSqlitePrebuild(): { version: string; env: Record<string, string> } | undefined;
