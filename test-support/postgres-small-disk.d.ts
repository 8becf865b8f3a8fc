/** What {@link databaseOnSmallDisk} needs of pg's `Client` class (pass `pg.Client`). */
export type PgClientClass = new (config: {
  connectionString: string;
}) => {
  connect(): Promise<unknown>;
  query(text: string): Promise<unknown>;
  end(): Promise<void>;
};

/**
 * Makes a database `name` (default `collab_full`) on the server at `serverUrl` whose tables live in
 * a tablespace on `directory`; resolves to its URL. See postgres-small-disk.js.
 */
export function databaseOnSmallDisk(options: {
  directory: string;
  serverUrl: string;
  Client: PgClientClass;
  name?: string;
}): Promise<string>;
