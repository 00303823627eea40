-- Known problems (docs/known-problems.md): friction found in closed session recordings, gathered
-- by the matcher into tickets ("known problems") on friction-kind issues, confirmed by checks
-- against further recordings and published by a gate. Numbered 078 as the spec's upgrade rules
-- name it (numbers skip from 010). Additive: nothing before it changes meaning.
CREATE EXTENSION IF NOT EXISTS vector;

-- The status a group had before it was archived (scripts/retire-friction-buckets.sql, svc
-- reset-friction-tickets): kept so an archived group can be told apart and, by hand, restored.
ALTER TABLE issues ADD COLUMN previous_status text;

-- Which closed recordings the matcher has scanned for friction (one row each, once).
CREATE TABLE friction_scans (
  project_id   uuid NOT NULL,
  recording_id uuid NOT NULL,
  scanned_at   timestamptz NOT NULL DEFAULT now(),
  findings     integer NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, recording_id),
  FOREIGN KEY (project_id, recording_id) REFERENCES recordings (project_id, id) ON DELETE CASCADE
);

-- One moment of friction in one recording: what a detector saw, where and when. The narrative is
-- what matching compares (mechanical, or rewritten by a model); an empty one has nothing to match.
CREATE TABLE friction_findings (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id      uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  environment_id  uuid REFERENCES environments (id) ON DELETE SET NULL,
  recording_id    uuid NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('rage_click', 'dead_click', 'error_after_click', 'form_abandon')),
  -- The page (path and query) and the target (a short selector and its text) of the friction.
  page            text NOT NULL,
  target          text NOT NULL,
  -- The moment of friction: a replay of the recording opens here.
  at              timestamptz NOT NULL,
  user_key        text,
  session_id      text,
  narrative       text NOT NULL,
  narrative_by    text NOT NULL DEFAULT 'mechanical' CHECK (narrative_by IN ('mechanical', 'model')),
  -- 384 dimensions whatever the provider (docs/known-problems.md, "Embeddings").
  embedding       vector(384),
  embedding_model text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, recording_id, kind, target, at),
  FOREIGN KEY (project_id, recording_id) REFERENCES recordings (project_id, id) ON DELETE CASCADE
);
CREATE INDEX friction_findings_environment ON friction_findings (project_id, environment_id, created_at);

-- A known problem: one per friction-kind issue (issues.kind = 'friction', fingerprint 'ticket:<id>').
CREATE TABLE tickets (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id       uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  environment_id   uuid REFERENCES environments (id) ON DELETE SET NULL,
  issue_id         uuid NOT NULL UNIQUE REFERENCES issues (id) ON DELETE CASCADE,
  state            text NOT NULL DEFAULT 'candidate' CHECK (state IN ('candidate', 'queued', 'analyzing', 'awaiting_approval', 'insight', 'needs_human', 'investigated', 'fixing', 'pr_draft', 'pr_created', 'archived')),
  -- The state it had before it was archived (retire script, reset command).
  previous_state   text,
  kind             text NOT NULL,
  page             text NOT NULL,
  target           text NOT NULL,
  narrative        text NOT NULL,
  embedding        vector(384),
  embedding_model  text,
  -- Screens its findings were seen on: the shortlist's "shares a visited screen".
  pages            text[] NOT NULL DEFAULT '{}',
  matched          integer NOT NULL DEFAULT 0,
  users            integer NOT NULL DEFAULT 0,
  checks_confirmed integer NOT NULL DEFAULT 0,
  checks_refuted   integer NOT NULL DEFAULT 0,
  checks_inconclusive integer NOT NULL DEFAULT 0,
  -- The matched count at which the next batch of checks starts (3, then every 10 more).
  checks_next_at   integer NOT NULL DEFAULT 3,
  published_at     timestamptz,
  unpublished_at   timestamptz,
  -- The gate asked whether this problem shares one fix with another: the other, and the answer.
  same_fix_ticket_id uuid REFERENCES tickets (id) ON DELETE SET NULL,
  same_fix         text CHECK (same_fix IN ('asked', 'same', 'different')),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  version          integer NOT NULL DEFAULT 1
);
CREATE INDEX tickets_environment ON tickets (project_id, environment_id, state);
CREATE INDEX tickets_pages ON tickets USING gin (pages);
CREATE INDEX tickets_embedding ON tickets USING hnsw (embedding vector_cosine_ops);

-- A finding that joined a ticket (the ticket's evidence: its recordings, each at its moment).
CREATE TABLE ticket_matches (
  ticket_id    uuid NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
  finding_id   uuid NOT NULL REFERENCES friction_findings (id) ON DELETE CASCADE,
  project_id   uuid NOT NULL,
  recording_id uuid NOT NULL,
  at           timestamptz NOT NULL,
  user_key     text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (ticket_id, finding_id)
);
CREATE INDEX ticket_matches_recording ON ticket_matches (project_id, recording_id);

-- What matching decided for a finding: joined a ticket, created one, or not a problem.
CREATE TABLE matching_decisions (
  finding_id     uuid PRIMARY KEY REFERENCES friction_findings (id) ON DELETE CASCADE,
  project_id     uuid NOT NULL,
  environment_id uuid,
  decision       text NOT NULL CHECK (decision IN ('joined', 'created', 'not_a_problem')),
  ticket_id      uuid REFERENCES tickets (id) ON DELETE SET NULL,
  -- Cosine distance to the ticket it joined (NULL: decided without embeddings).
  distance       real,
  shortlist      jsonb NOT NULL DEFAULT '[]',
  decided_by     text NOT NULL CHECK (decided_by IN ('embeddings', 'no_embeddings', 'model')),
  decided_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX matching_decisions_environment ON matching_decisions (project_id, environment_id, decided_at);

-- A check: a ticket confirmed (or not) against one further recording. utc_day counts the budget.
CREATE TABLE ticket_checks (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  ticket_id    uuid NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
  project_id   uuid NOT NULL,
  recording_id uuid NOT NULL,
  verdict      text NOT NULL CHECK (verdict IN ('confirmed', 'refuted', 'inconclusive')),
  checked_at   timestamptz NOT NULL DEFAULT now(),
  utc_day      date NOT NULL,
  UNIQUE (ticket_id, recording_id)
);
CREATE INDEX ticket_checks_budget ON ticket_checks (project_id, utc_day);

-- A friction-kind issue's recordings (what the dashboard lists; reset detaches them).
CREATE TABLE issue_recordings (
  issue_id     uuid NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  project_id   uuid NOT NULL,
  recording_id uuid NOT NULL,
  at           timestamptz NOT NULL,
  PRIMARY KEY (issue_id, recording_id, at)
);

-- The matcher's jobs: scan a recording, match a finding, confirm a ticket. State in PostgreSQL
-- (what the operator commands and SQL scripts see); stream:friction carries the dispatch.
CREATE TABLE friction_jobs (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind           text NOT NULL CHECK (kind IN ('scan', 'match', 'confirm')),
  project_id     uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  environment_id uuid,
  -- The recording (scan), finding (match) or ticket (confirm) the job is about.
  subject        uuid NOT NULL,
  state          text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'claimed', 'completed', 'failed')),
  source         text NOT NULL DEFAULT 'live' CHECK (source IN ('live', 'backfill')),
  -- Set by `svc backfill-tickets --allow-missing-embeddings`: a worker without embeddings runs the
  -- job anyway (every problem a new ticket) instead of failing it.
  allow_missing_embeddings boolean NOT NULL DEFAULT false,
  -- A backfill's jobs are spaced by its --rate: none is started before this.
  not_before     timestamptz NOT NULL DEFAULT now(),
  attempts       integer NOT NULL DEFAULT 0,
  -- Pending: when the dispatch lapses and the job is dispatched again (NULL: never dispatched yet).
  -- Claimed: the worker's lease.
  lease_until    timestamptz,
  -- When its latest claim started it.
  started_at     timestamptz,
  version        integer NOT NULL DEFAULT 1,
  error          text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX friction_jobs_active ON friction_jobs (kind, subject) WHERE state IN ('pending', 'claimed');
CREATE INDEX friction_jobs_due ON friction_jobs (not_before) WHERE state = 'pending';
CREATE INDEX friction_jobs_environment ON friction_jobs (project_id, environment_id, state);

-- A published known problem waits for a person to press Investigate (tickets.state and its issue's
-- status awaiting_approval); true sends it to the investigator at once (docs/known-problems.md,
-- "Investigating a known problem").
ALTER TABLE projects ADD COLUMN friction_auto_investigate boolean NOT NULL DEFAULT false;
