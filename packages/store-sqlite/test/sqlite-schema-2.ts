/**
 * The schema as @fate/store-sqlite 0.1.0 (schema version 2) left a file, exactly as it
 * wrote it: literal text, not this package's migrations, so a test migrating it proves
 * that files written by the released version still open.
 */
export const SCHEMA_2 = `
CREATE TABLE "fate_meta" ("key" text primary key, "value" text not null);
CREATE TABLE "transactions" ("id" text primary key, "status" text not null, "stack" text not null, "info" text not null, "res_lock" text, "res_uuid" text, "defer_until" integer default 0 not null) strict;
CREATE INDEX "transactions_runnable" on "transactions" ("id", "defer_until", "status", "res_lock") where ("res_lock" is null and "status" in ('SUBMITTED', 'IN_PROGRESS', 'FAILED_IN_PROGRESS'));
CREATE TABLE "instances" ("id" text primary key, "expires_at" integer not null) strict;
CREATE INDEX "transactions_reserved" on "transactions" ("id", "res_lock", "res_uuid") where "res_lock" is not null;
INSERT INTO fate_meta (key, value) VALUES ('schema_version', '2');
PRAGMA journal_mode = WAL;
`;
