-- The team's triage of an issue (docs/issues.md): resolved, ignored or open, beside the pipeline's
-- status (new, queued, analyzing, …), which this leaves as it was. Additive: every column is
-- nullable or has a constant default (no table rewrite), the checks are added NOT VALID (no scan
-- of a large table under its lock; every new or changed row is still checked).

ALTER TABLE issues
  ADD COLUMN triage text NOT NULL DEFAULT 'open',
  -- Resolved: when, and how: 'now' (any event received after resolved_at brings it back) or
  -- 'next_release' (only an event of a release later than resolved_release does).
  ADD COLUMN resolved_at timestamptz,
  ADD COLUMN resolved_mode text NOT NULL DEFAULT '',
  ADD COLUMN resolved_release text,
  -- Ignored: for good (all NULL), until a time, or until the issue's counters reach these totals.
  ADD COLUMN ignored_until timestamptz,
  ADD COLUMN ignored_until_events bigint,
  ADD COLUMN ignored_until_users integer,
  -- The latest regression: when and in which release (NULL: an event without a release).
  ADD COLUMN regressed_at timestamptz,
  ADD COLUMN regressed_release text,
  -- Set on an issue merged into another: its new events land in the target.
  ADD COLUMN merged_into uuid REFERENCES issues (id) ON DELETE SET NULL;

ALTER TABLE issues ADD CONSTRAINT issues_triage_check CHECK (triage IN ('open', 'resolved', 'ignored')) NOT VALID;
ALTER TABLE issues ADD CONSTRAINT issues_resolved_mode_check CHECK (resolved_mode IN ('', 'now', 'next_release')) NOT VALID;

-- Which issue an event was merged from (undo moves it back); NULL for an event of its own issue.
ALTER TABLE events ADD COLUMN merged_from uuid;

-- Every change to an issue a person, an agent or the service made, and why.
CREATE TABLE issue_history (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  project_id  uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  issue_id    uuid NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  at          timestamptz NOT NULL DEFAULT now(),
  -- person (actor_id: the user's id), agent (the api key's id), service (the part that did it).
  actor_kind  text NOT NULL CHECK (actor_kind IN ('person', 'agent', 'service')),
  actor_id    text NOT NULL DEFAULT '',
  actor_label text NOT NULL DEFAULT '',
  action      text NOT NULL CHECK (action IN ('resolve', 'ignore', 'reopen', 'regress', 'unignore', 'merge', 'merged', 'unmerge', 'unmerged', 'pull_request')),
  from_state  text NOT NULL DEFAULT '',
  to_state    text NOT NULL DEFAULT '',
  reason      text NOT NULL DEFAULT '' CHECK (length(reason) <= 1000),
  detail      jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX issue_history_issue ON issue_history (issue_id, at DESC);

-- A project's releases in the order they were first seen (a release that does not parse as
-- semver is ordered by this); written by the grouper.
CREATE TABLE releases (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name       text NOT NULL,
  first_seen timestamptz NOT NULL,
  PRIMARY KEY (project_id, name)
);

-- Which releases and environments each issue was seen in (first time only; written once per pair
-- by the grouper): the list's release and environment filters, without an index on events.
CREATE TABLE issue_releases (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  issue_id   uuid NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  release    text NOT NULL,
  first_seen timestamptz NOT NULL,
  PRIMARY KEY (issue_id, release)
);
CREATE INDEX issue_releases_project_release ON issue_releases (project_id, release);
CREATE TABLE issue_environments (
  project_id     uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  issue_id       uuid NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  environment_id uuid NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
  first_seen     timestamptz NOT NULL,
  PRIMARY KEY (issue_id, environment_id)
);
CREATE INDEX issue_environments_project_environment ON issue_environments (project_id, environment_id);

-- What the list filters and sorts on (services/grouper/read/issue-list.ts).
CREATE INDEX issues_project_triage_last_seen ON issues (project_id, triage, last_seen DESC);
CREATE INDEX issues_project_first_seen ON issues (project_id, first_seen DESC);
CREATE INDEX issues_project_event_count ON issues (project_id, event_count DESC);
CREATE INDEX issues_project_user_count ON issues (project_id, user_count DESC);
CREATE INDEX issues_merged_into ON issues (merged_into) WHERE merged_into IS NOT NULL;
-- The list's count of noise issues (the dashboard's "show noise").
CREATE INDEX issues_project_noise ON issues (project_id, triage) WHERE noise <> '' AND merged_into IS NULL;
CREATE INDEX issue_actors_actor ON issue_actors (actor, actor_kind);

-- Text search over title and culprit by trigrams, where the server has pg_trgm (PostgreSQL's
-- contrib; PGlite loads it). Without it the search still works, by a scan.
DO $$
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'pg_trgm is not available: issue search scans instead of using an index';
  END;
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    EXECUTE 'CREATE INDEX issues_search_trgm ON issues USING gin ((title || '' '' || culprit) gin_trgm_ops)';
  END IF;
END $$;

-- What the events already stored say (an existing deployment): their releases and environments.
-- Reads events without blocking their writers.
INSERT INTO releases (project_id, name, first_seen)
  SELECT project_id, release, min(received_at) FROM events WHERE release IS NOT NULL GROUP BY project_id, release
  ON CONFLICT DO NOTHING;
INSERT INTO issue_releases (project_id, issue_id, release, first_seen)
  SELECT project_id, issue_id, release, min(received_at) FROM events WHERE release IS NOT NULL GROUP BY project_id, issue_id, release
  ON CONFLICT DO NOTHING;
INSERT INTO issue_environments (project_id, issue_id, environment_id, first_seen)
  SELECT project_id, issue_id, environment_id, min(received_at) FROM events WHERE environment_id IS NOT NULL GROUP BY project_id, issue_id, environment_id
  ON CONFLICT DO NOTHING;
