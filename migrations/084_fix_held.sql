-- "Held in production" (docs/fixes.md): after a fix's pull request was merged, the first release
-- first seen after the merge is watched until enough sessions saw it; then the fix held (no event
-- of its issue in that release) or came back (the issue has events of it). Written by the
-- investigator's sweep (services/investigator/fix/held.ts). Additive: constant defaults or NULL.

-- '' not looked at yet, waiting (no release after the merge with enough sessions yet), held, came_back.
ALTER TABLE fixes ADD COLUMN held_state text NOT NULL DEFAULT '' CONSTRAINT fixes_held_state_check CHECK (held_state IN ('', 'waiting', 'held', 'came_back'));
-- The release judged (or watched while waiting), its distinct sessions and the issue's events in it.
ALTER TABLE fixes ADD COLUMN held_release text;
ALTER TABLE fixes ADD COLUMN held_sessions integer;
ALTER TABLE fixes ADD COLUMN held_events bigint;
-- When the sweep last looked: the least recently looked at first; set with the verdict.
ALTER TABLE fixes ADD COLUMN held_checked_at timestamptz;

-- What the sweep reads: merged fixes without a verdict.
CREATE INDEX fixes_held_due ON fixes (held_checked_at NULLS FIRST, pr_merged_at) WHERE pr_state = 'merged' AND held_state IN ('', 'waiting');

-- The digest tells a verdict reached in its window (services/digester/pick.ts).
CREATE INDEX fixes_project_held ON fixes (project_id, held_checked_at) WHERE held_state IN ('held', 'came_back');
ALTER TABLE digest_items DROP CONSTRAINT digest_items_outcome_check;
ALTER TABLE digest_items ADD CONSTRAINT digest_items_outcome_check
  CHECK (outcome IN ('cause_found', 'outside_code', 'fix_draft', 'fix_ready', 'fix_held', 'fix_came_back')) NOT VALID;
