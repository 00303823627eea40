-- Retires the friction groups of releases before known problems (docs/upgrade-078.md, step 3),
-- once migration 078 has landed and every old worker is stopped:
--
--   psql -X -v ON_ERROR_STOP=1 -f scripts/retire-friction-buckets.sql "$DATABASE_URL"
--   (compose: docker compose exec -T db psql -X -v ON_ERROR_STOP=1 -U svc -d svc < scripts/retire-friction-buckets.sql)
--
-- One transaction: all of it or nothing. Safe to rerun: a rerun archives only groups that are not
-- archived yet and fails only work still pending or claimed. Plain SQL, no psql commands, so any
-- client can run it.
--
-- What it does (the spec's "Ticket states"):
-- 1. Every friction-kind issue (issues.kind = 'friction') with no known problem in candidate,
--    queued, analyzing, awaiting_approval, insight, needs_human or investigated is archived, its
--    status kept in previous_status. Groups in fixing, or in pr_draft or pr_created (by the issue's
--    status or its ticket's state) whose pull request is still open (its fix not seen merged or
--    closed by the pull request follower), are left intact, as is any error-kind issue.
-- 2. Investigations of archived friction groups still queued or analyzing (pending or claimed)
--    end as needs_human with the reason friction_group_retired, and their fixes still queued or
--    fixing end the same way, so no worker picks them up. The code and its remediation are the
--    stop catalogue's (services/investigator/stops.ts, docs/errors.md); a unit test keeps them so.
-- 3. The daily digest's cached copy: the digest (migration 079, docs/digest.md) keeps no copy
--    across runs: each run picks and freezes its entries afresh, and its entries are only error
--    issues and known problems published on confirmed evidence, whose groups this script never
--    archives (their tickets are in investigated or a later state). Nothing to invalidate.
BEGIN;

-- A rerun or a second operator waits here instead of interleaving.
SELECT pg_advisory_xact_lock(7082078);

WITH archived AS (
  UPDATE issues i
     -- An old worker that reopened an archived group leaves the first previous_status in place.
     SET previous_status = coalesce(i.previous_status, i.status), status = 'archived'
   WHERE i.kind = 'friction'
     AND i.status NOT IN ('archived', 'fixing')
     -- A pull request still open (its fix not yet seen merged or closed: migration 083) keeps its group.
     AND NOT (i.status IN ('pr_draft', 'pr_created') AND EXISTS (SELECT 1 FROM fixes f WHERE f.issue_id = i.id AND f.state IN ('pr_draft', 'pr_created')))
     AND NOT EXISTS (
       SELECT 1 FROM tickets t
        WHERE t.issue_id = i.id
          AND (t.state IN ('candidate', 'queued', 'analyzing', 'awaiting_approval', 'insight', 'needs_human', 'investigated', 'fixing')
               OR (t.state IN ('pr_draft', 'pr_created') AND EXISTS (SELECT 1 FROM fixes f WHERE f.issue_id = i.id AND f.state IN ('pr_draft', 'pr_created')))))
  RETURNING i.id
)
SELECT count(*) AS friction_groups_archived FROM archived;

WITH stopped AS (
  UPDATE investigations v
     SET state = 'needs_human', finished_at = now(), lease_until = now(), version = v.version + 1
    FROM issues i
   WHERE i.id = v.issue_id AND i.kind = 'friction' AND i.status = 'archived'
     AND v.state IN ('queued', 'analyzing')
  RETURNING v.id
), outcomes AS (
  INSERT INTO investigation_outcomes (investigation_id, kind, reason_code, reason_message, remediation)
  SELECT id, 'needs_human', 'friction_group_retired',
         'The friction group was archived when known problems replaced friction groups (scripts/retire-friction-buckets.sql) before this investigation ended.',
         'Nothing to press: friction groups were retired when known problems replaced them (scripts/retire-friction-buckets.sql). Check the known problems list once svc backfill-tickets has matched the recordings; one published then is investigated and fixed afresh.'
    FROM stopped
  ON CONFLICT (investigation_id) DO NOTHING
  RETURNING investigation_id
)
SELECT count(*) AS investigations_failed FROM outcomes;

WITH stopped AS (
  UPDATE fixes f
     SET state = 'needs_human', finished_at = now(), lease_until = now(), version = f.version + 1,
         reason_code = 'friction_group_retired',
         reason_message = 'The friction group was archived when known problems replaced friction groups (scripts/retire-friction-buckets.sql) before this fix ended.',
         remediation = 'Nothing to press: friction groups were retired when known problems replaced them (scripts/retire-friction-buckets.sql). Check the known problems list once svc backfill-tickets has matched the recordings; one published then is investigated and fixed afresh.'
    FROM issues i
   WHERE i.id = f.issue_id AND i.kind = 'friction' AND i.status = 'archived'
     AND f.state IN ('queued', 'fixing')
  RETURNING f.id
)
SELECT count(*) AS fixes_failed FROM stopped;

COMMIT;
