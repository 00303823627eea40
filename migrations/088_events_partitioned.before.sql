-- Runs outside a transaction before 088_events_partitioned.sql, statement by statement, only when
-- events holds 100,000 rows or more (shared/db/migrate.ts, "before steps"): what would lock a large
-- table for long inside the migration is done here without blocking writes. Each statement is
-- idempotent, so a run killed midway is run again whole.
-- svc:before-if: SELECT to_regclass('events') IS NOT NULL AND (SELECT relkind FROM pg_class WHERE oid = to_regclass('events')) = 'r' AND (SELECT count(*) FROM (SELECT 1 FROM events LIMIT 100000) s) >= 100000
--;;
-- The cutover: the next UTC Monday at least a day away, so rows written until 088 runs still
-- fall below it (the CHECK refuses any that would not; the grouper retries such a batch).
CREATE TABLE IF NOT EXISTS events_cutover AS
  SELECT date_trunc('week', now() AT TIME ZONE 'UTC' + interval '8 days') AT TIME ZONE 'UTC' AS at
--;;
-- A build killed midway leaves an invalid index: dropped, so the next statement builds it again.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('events_legacy_id_received') AND NOT indisvalid) THEN
    DROP INDEX events_legacy_id_received;
  END IF;
END $$
--;;
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS events_legacy_id_received ON events (id, received_at)
--;;
-- NOT VALID: a brief lock, no scan; VALIDATE then scans under a lock that lets writes through.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'events_legacy_before_cutover') THEN
    EXECUTE format('ALTER TABLE events ADD CONSTRAINT events_legacy_before_cutover CHECK (received_at < %L) NOT VALID', (SELECT at FROM events_cutover));
  END IF;
END $$
--;;
ALTER TABLE events VALIDATE CONSTRAINT events_legacy_before_cutover
