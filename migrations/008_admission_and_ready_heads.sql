-- Admission as the spec words it (docs/investigations.md, "Admission") and ready pull requests
-- that stay verified (docs/fixes.md, "Delivery rules").

-- An actor counts towards admission only through events of a real user (not a headless browser,
-- crawler or monitoring agent, by its user agent) whose own timestamp is not in the future beyond
-- the clock-skew tolerance: the newest such timestamp. NULL: no such event yet. seen_kinds says
-- what the actor's events were, as bits (services/grouper/real-user.ts): 1 a real user's current
-- one, 2 an automated agent's, 4 one dated ahead of the clock; admission says why it did not count.
ALTER TABLE issue_actors ADD COLUMN real_seen_at timestamptz;
ALTER TABLE issue_actors ADD COLUMN seen_kinds smallint NOT NULL DEFAULT 0;
-- Admission counts by real_seen_at now; nothing reads issue_actors by last_seen any more.
DROP INDEX issue_actors_recent;
CREATE INDEX issue_actors_real ON issue_actors (issue_id, actor_kind, real_seen_at);

-- Why an issue was not investigated, as admission last decided it for the issue's latest events:
-- a stable code and one line for people (the issue page, the JSON read). Removed when admitted.
CREATE TABLE issue_admission_notes (
  issue_id   uuid PRIMARY KEY REFERENCES issues (id) ON DELETE CASCADE,
  code       text NOT NULL,
  message    text NOT NULL,
  decided_at timestamptz NOT NULL DEFAULT now()
);

-- Whether the fix's pull request was ready for review (not a draft) as the code host answered
-- right after this fix delivered to it: the invariant checker holds every ready one to executed
-- E0, E1 and E2 rows of the head it carries.
ALTER TABLE fixes ADD COLUMN pr_ready boolean NOT NULL DEFAULT false;
UPDATE fixes SET pr_ready = true WHERE delivery = 'ready';
