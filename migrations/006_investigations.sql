-- Investigations (services/investigator/, docs/investigations.md): the investigator's own tables,
-- reached through MikroORM entities. An issue is investigated once per episode: the first when it
-- qualifies, another when it regresses after an outcome or a person asks again.

CREATE TABLE investigations (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  issue_id      uuid NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  project_id    uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  episode       integer NOT NULL CHECK (episode >= 1),
  -- auto: admission; regression: it came back after an outcome; manual: a person asked.
  trigger       text NOT NULL CHECK (trigger IN ('auto', 'regression', 'manual')),
  requested_by  uuid REFERENCES users (id) ON DELETE SET NULL,
  state         text NOT NULL CHECK (state IN ('queued', 'analyzing', 'investigated', 'insight', 'needs_human')),
  -- Runs started (a worker that died mid-run leaves the next one to start again).
  attempts      integer NOT NULL DEFAULT 0,
  -- Until when whoever holds it answers for it: a worker renews it while it runs; past it (and
  -- the retries) the sweeper re-dispatches or stops it, so nothing stays queued or analyzing.
  lease_until   timestamptz NOT NULL,
  release       text,
  repo          text NOT NULL DEFAULT '',
  -- The repository's web address, for links to cited lines at the commit.
  repo_url      text NOT NULL DEFAULT '',
  commit_sha    text NOT NULL DEFAULT '',
  model         text NOT NULL DEFAULT '',
  turns         integer NOT NULL DEFAULT 0,
  input_tokens  bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  duration_ms   integer NOT NULL DEFAULT 0,
  -- Optimistic lock: every state change says which version it read.
  version       integer NOT NULL DEFAULT 1,
  created_at    timestamptz NOT NULL DEFAULT now(),
  started_at    timestamptz,
  finished_at   timestamptz,
  UNIQUE (issue_id, episode)
);
-- At most one investigation of an issue in flight.
CREATE UNIQUE INDEX investigations_one_active ON investigations (issue_id) WHERE state IN ('queued', 'analyzing');
CREATE INDEX investigations_lease ON investigations (lease_until) WHERE state IN ('queued', 'analyzing');
CREATE INDEX investigations_project_created ON investigations (project_id, created_at);

-- What each run did: model turns and tool calls, for the record (sizes and names; never event text).
CREATE TABLE investigation_steps (
  id               bigserial PRIMARY KEY,
  investigation_id uuid NOT NULL REFERENCES investigations (id) ON DELETE CASCADE,
  attempt          integer NOT NULL,
  seq              integer NOT NULL,
  kind             text NOT NULL CHECK (kind IN ('model', 'tool', 'check')),
  name             text NOT NULL DEFAULT '',
  detail           text NOT NULL DEFAULT '',
  input_tokens     integer NOT NULL DEFAULT 0,
  output_tokens    integer NOT NULL DEFAULT 0,
  duration_ms      integer NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (investigation_id, attempt, seq)
);

-- The one outcome of a finished investigation: its primary key makes a second impossible.
CREATE TABLE investigation_outcomes (
  investigation_id uuid PRIMARY KEY REFERENCES investigations (id) ON DELETE CASCADE,
  kind             text NOT NULL CHECK (kind IN ('investigated', 'insight', 'needs_human')),
  reason_code      text NOT NULL DEFAULT '',
  reason_message   text NOT NULL DEFAULT '',
  remediation      text NOT NULL DEFAULT '',
  summary          text NOT NULL DEFAULT '',
  chain            jsonb NOT NULL DEFAULT '[]',
  fix              text NOT NULL DEFAULT '',
  -- outside the user's code: { kind, name, evidence }
  cause            jsonb,
  confidence       real,
  created_at       timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'needs_human') = (reason_code <> ''))
);

-- Lines of the repository at the investigation's commit that an accepted answer cites, verified.
CREATE TABLE investigation_citations (
  id               bigserial PRIMARY KEY,
  investigation_id uuid NOT NULL REFERENCES investigations (id) ON DELETE CASCADE,
  path             text NOT NULL,
  line_start       integer NOT NULL,
  line_end         integer NOT NULL,
  quote            text NOT NULL
);
CREATE INDEX investigation_citations_investigation ON investigation_citations (investigation_id);
