-- Issue 32: events partitioned by week of received_at, so the retention pass drops a week whole
-- (docs/retention.md). Weekly: a 90-day default keeps about 14 partitions, few enough that a query
-- without a received_at bound (an issue's events) probes few indexes, and a dropped week is a
-- fifteenth of the table, not a month held past its time; days would make 90 partitions to plan.
--
-- The old table stays, as the partition events_legacy (MINVALUE, cutover): renamed, attached and
-- dropped by the retention pass once expired. A large table is prepared beforehand outside this
-- transaction (088_events_partitioned.before.sql: its unique index built CONCURRENTLY and its
-- CHECK validated without blocking writes), so everything here is metadata under a brief lock; a
-- small one (under 100,000 rows, as a fresh install's empty one) is prepared here.

-- An id's first receipt: the arbiter that stores a sender's resend (same id, new received_at) once.
-- Its primary key makes a second grouper inserting the same id wait for the first's commit and then
-- skip it; the retention pass prunes receipts older than the resend window (7 days).
CREATE TABLE event_receipts (
  id uuid PRIMARY KEY,
  received_at timestamptz NOT NULL
);
CREATE INDEX event_receipts_received ON event_receipts (received_at);

ALTER TABLE events RENAME TO events_legacy;
ALTER TABLE events_legacy RENAME CONSTRAINT events_pkey TO events_legacy_id;
ALTER TABLE events_legacy RENAME CONSTRAINT events_environment_id_fkey TO events_legacy_environment_id_fkey;
ALTER TABLE events_legacy RENAME CONSTRAINT events_issue_id_fkey TO events_legacy_issue_id_fkey;
ALTER TABLE events_legacy RENAME CONSTRAINT events_project_id_fkey TO events_legacy_project_id_fkey;
ALTER INDEX events_issue_received RENAME TO events_legacy_issue_received;
ALTER INDEX events_issue_recording RENAME TO events_legacy_issue_recording;
ALTER INDEX events_project_received RENAME TO events_legacy_project_received;

CREATE TABLE events (
  id uuid NOT NULL,
  project_id uuid NOT NULL,
  issue_id uuid NOT NULL,
  environment_id uuid,
  occurred_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  stored_at timestamptz DEFAULT clock_timestamp() NOT NULL,
  release text,
  session_id text,
  user_key text,
  "grouping" json NOT NULL,
  payload json NOT NULL,
  recording_id uuid,
  merged_from uuid
) PARTITION BY RANGE (received_at);
-- lz4 where the server has it, as 002 chose; partitions made later take the parent's.
DO $$
BEGIN
  ALTER TABLE events ALTER COLUMN payload SET COMPRESSION lz4, ALTER COLUMN "grouping" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'this PostgreSQL has no lz4: events keep the default compression';
END $$;
-- The partition key must be in every unique key; the id alone stays unique through event_receipts.
ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (id, received_at);
CREATE INDEX events_issue_received ON events (issue_id, received_at DESC);
CREATE INDEX events_issue_recording ON events (issue_id, recording_id) WHERE recording_id IS NOT NULL;
CREATE INDEX events_project_received ON events (project_id, received_at DESC);
ALTER TABLE events ADD CONSTRAINT events_environment_id_fkey FOREIGN KEY (environment_id) REFERENCES environments(id) ON DELETE SET NULL;
ALTER TABLE events ADD CONSTRAINT events_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES issues(id) ON DELETE CASCADE;
ALTER TABLE events ADD CONSTRAINT events_project_id_fkey FOREIGN KEY (project_id) REFERENCES projects(id) ON DELETE CASCADE;
-- What no week holds (a received_at beyond the weeks made ahead): stored, never refused; the
-- retention pass deletes its expired rows like any project's.
CREATE TABLE events_default PARTITION OF events DEFAULT;

DO $$
DECLARE
  cutover timestamptz;
  prepared boolean := to_regclass('events_cutover') IS NOT NULL;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM events_legacy) THEN
    DROP TABLE events_legacy;
    cutover := date_trunc('week', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  ELSE
    IF prepared THEN
      EXECUTE 'SELECT at FROM events_cutover' INTO cutover;
    ELSE
      -- Small: checked and indexed here, under this transaction's lock. The next UTC Monday at
      -- least a day away, as the before step chooses it.
      cutover := date_trunc('week', now() AT TIME ZONE 'UTC' + interval '8 days') AT TIME ZONE 'UTC';
      EXECUTE format('ALTER TABLE events_legacy ADD CONSTRAINT events_legacy_before_cutover CHECK (received_at < %L)', cutover);
      CREATE UNIQUE INDEX events_legacy_id_received ON events_legacy (id, received_at);
    END IF;
    ALTER TABLE events_legacy DROP CONSTRAINT events_legacy_id;
    ALTER TABLE events_legacy ADD CONSTRAINT events_legacy_pkey PRIMARY KEY USING INDEX events_legacy_id_received;
    -- Metadata only: the validated CHECK proves the range, the indexes and foreign keys match the parent's.
    EXECUTE format('ALTER TABLE events ATTACH PARTITION events_legacy FOR VALUES FROM (MINVALUE) TO (%L)', cutover);
  END IF;
  DROP TABLE IF EXISTS events_cutover;
  -- This week (or the cutover's) and four ahead; the retention pass keeps four ahead from here on.
  FOR week IN 0..4 LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF events FOR VALUES FROM (%L) TO (%L)',
      'events_w' || to_char(cutover AT TIME ZONE 'UTC' + week * interval '7 days', 'YYYYMMDD'),
      cutover + week * interval '7 days', cutover + (week + 1) * interval '7 days');
  END LOOP;
END $$;
