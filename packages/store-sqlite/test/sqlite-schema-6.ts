/**
 * The schema as @fate/store-sqlite left a file at schema version 6 (main at `771d833`), read
 * back from `sqlite_schema`: literal text, so a test upgrading it proves what such a file
 * becomes. One SUBMITTED record of op `a`.
 */
export const SCHEMA_6 = `
CREATE TABLE "fate_meta" ("key" text primary key, "value" text not null);
CREATE TABLE "transactions" ("id" text primary key, "status" text not null, "stack" text not null, "info" text not null, "res_lock" text, "res_uuid" text, "defer_until" integer default 0 not null, "op" text default '' not null, "finished_at" integer, "due_at" integer, "priority" integer default 0 not null) strict;
CREATE INDEX "transactions_reserved" on "transactions" ("id", "res_lock", "res_uuid") where "res_lock" is not null;
CREATE TABLE "liveness" ("lock_id" text primary key, "state" text not null, "forget_at" integer not null) strict;
CREATE INDEX "transactions_finished" on "transactions" ("finished_at", "id") where "finished_at" is not null and "due_at" is null;
CREATE INDEX "transactions_due" on "transactions" ("due_at", "id", "finished_at") where "due_at" is not null;
CREATE TABLE fate_counts (status text NOT NULL, op text NOT NULL, n integer NOT NULL, PRIMARY KEY (status, op)) STRICT;
CREATE TRIGGER fate_count_insert AFTER INSERT ON transactions BEGIN INSERT INTO fate_counts (status, op, n) VALUES (new.status, new.op, 1) ON CONFLICT (status, op) DO UPDATE SET n = n + 1; END;
CREATE TRIGGER fate_count_delete AFTER DELETE ON transactions BEGIN UPDATE fate_counts SET n = n - 1 WHERE status = old.status AND op = old.op; END;
CREATE TRIGGER fate_count_update AFTER UPDATE OF status, op ON transactions WHEN old.status IS NOT new.status OR old.op IS NOT new.op BEGIN UPDATE fate_counts SET n = n - 1 WHERE status = old.status AND op = old.op; INSERT INTO fate_counts (status, op, n) VALUES (new.status, new.op, 1) ON CONFLICT (status, op) DO UPDATE SET n = n + 1; END;
CREATE INDEX "transactions_runnable" on "transactions" ("priority", "id", "defer_until", "op", "status", "res_lock") where ("res_lock" is null and "status" in ('SUBMITTED', 'IN_PROGRESS', 'FAILED_IN_PROGRESS'));
INSERT INTO fate_meta (key, value) VALUES ('schema_version', '6');
INSERT INTO transactions (id, status, stack, info, op) VALUES ('0f8fad5b-d9cb-469f-a165-70867728950e', 'SUBMITTED', '[]', '{}', 'a');
PRAGMA journal_mode = WAL;
`;
