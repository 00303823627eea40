-- Projects, environments, keys, error groups (issues), events and per-issue actors.
-- Append-only: a landed migration is never edited; changes come as a new numbered file.

CREATE TABLE projects (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  codehost_repo text NOT NULL DEFAULT '',
  timezone      text NOT NULL DEFAULT 'UTC',
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE environments (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, name)
);

-- A key is prefix + id + '_' + secret; only a SHA-256 of the secret is kept.
CREATE TABLE api_keys (
  id          text PRIMARY KEY,
  project_id  uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('ingest', 'sourcemap', 'api')),
  secret_hash bytea NOT NULL,
  label       text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);
CREATE INDEX api_keys_project ON api_keys (project_id);

CREATE TABLE issues (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id       uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  kind             text NOT NULL DEFAULT 'error',
  fingerprint      text NOT NULL,
  grouping_version integer NOT NULL,
  status           text NOT NULL DEFAULT 'new',
  reason_code      text NOT NULL DEFAULT '',
  reason_message   text NOT NULL DEFAULT '',
  title            text NOT NULL,
  culprit          text NOT NULL DEFAULT '',
  first_seen       timestamptz NOT NULL,
  last_seen        timestamptz NOT NULL,
  event_count      bigint NOT NULL DEFAULT 0,
  user_count       integer NOT NULL DEFAULT 0,
  session_count    integer NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, kind, fingerprint)
);
CREATE INDEX issues_project_last_seen ON issues (project_id, last_seen DESC);

CREATE TABLE events (
  id             uuid PRIMARY KEY,
  project_id     uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  issue_id       uuid NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  environment_id uuid REFERENCES environments (id) ON DELETE SET NULL,
  occurred_at    timestamptz NOT NULL,
  received_at    timestamptz NOT NULL,
  -- When the grouper wrote it: stored_at - received_at is the processing lag.
  stored_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
  release        text,
  session_id     text,
  user_key       text,
  grouping       jsonb NOT NULL,
  payload        jsonb NOT NULL
);
CREATE INDEX events_issue_received ON events (issue_id, received_at DESC);
CREATE INDEX events_project_received ON events (project_id, received_at DESC);

-- Distinct users and sessions per issue. last_seen makes "distinct in the last N days" a range
-- count; first_seen and the issue's counters give totals without scanning events.
CREATE TABLE issue_actors (
  issue_id   uuid NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  actor_kind char(1) NOT NULL CHECK (actor_kind IN ('u', 's')),
  actor      text NOT NULL,
  first_seen timestamptz NOT NULL,
  last_seen  timestamptz NOT NULL,
  PRIMARY KEY (issue_id, actor_kind, actor)
);
CREATE INDEX issue_actors_recent ON issue_actors (issue_id, actor_kind, last_seen);
