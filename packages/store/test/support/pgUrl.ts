// Where the PostgreSQL tests (and their child processes) find the server.
export const TEST_DATABASE_URL = process.env.TURNLOG_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
