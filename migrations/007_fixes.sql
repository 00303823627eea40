-- Fixes (services/investigator/fix/, docs/fixes.md): after an investigation finds the cause in the
-- user's code, a fix is built in a sandbox, its evidence executed and recorded, and a pull request
-- delivered by the rules of the spec ("What the service does" 3). Reached through MikroORM entities.

-- A project may opt in to limited drafts: a fix without a reproducing test (E2) opens as a draft
-- when the build passes (E0), no baseline test breaks (E1) and the review approves.
ALTER TABLE projects ADD COLUMN fix_limited_drafts boolean NOT NULL DEFAULT false;

CREATE TABLE fixes (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  investigation_id uuid NOT NULL REFERENCES investigations (id) ON DELETE CASCADE,
  issue_id         uuid NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  project_id       uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  -- auto: it followed an automatic investigation; manual: a person started it ("Fix this").
  trigger          text NOT NULL CHECK (trigger IN ('auto', 'manual')),
  requested_by     uuid REFERENCES users (id) ON DELETE SET NULL,
  state            text NOT NULL CHECK (state IN ('queued', 'fixing', 'pr_draft', 'pr_created', 'needs_human')),
  attempts         integer NOT NULL DEFAULT 0,
  lease_until      timestamptz NOT NULL,
  repo             text NOT NULL DEFAULT '',
  base_sha         text NOT NULL DEFAULT '',
  branch           text NOT NULL DEFAULT '',
  -- The regression test the fix declared (workspace path), '' when none.
  test_file        text NOT NULL DEFAULT '',
  summary          text NOT NULL DEFAULT '',
  diff             text NOT NULL DEFAULT '',
  -- The independent review of the diff: approved, vetoed, or '' (not reached).
  review           text NOT NULL DEFAULT '' CHECK (review IN ('', 'approved', 'vetoed')),
  review_reason    text NOT NULL DEFAULT '',
  -- How the pull request was opened: draft (automatic), limited_draft (opt-in, no E2), ready (person-started, E0 and E2).
  delivery         text NOT NULL DEFAULT '' CHECK (delivery IN ('', 'draft', 'limited_draft', 'ready')),
  pr_number        integer,
  pr_url           text NOT NULL DEFAULT '',
  head_sha         text NOT NULL DEFAULT '',
  -- Repository CI on head_sha, read back: none, pending, success, failure ('' before the first read).
  ci_state         text NOT NULL DEFAULT '',
  ci_checked_at    timestamptz,
  reason_code      text NOT NULL DEFAULT '',
  reason_message   text NOT NULL DEFAULT '',
  remediation      text NOT NULL DEFAULT '',
  model            text NOT NULL DEFAULT '',
  turns            integer NOT NULL DEFAULT 0,
  input_tokens     bigint NOT NULL DEFAULT 0,
  output_tokens    bigint NOT NULL DEFAULT 0,
  duration_ms      integer NOT NULL DEFAULT 0,
  version          integer NOT NULL DEFAULT 1,
  created_at       timestamptz NOT NULL DEFAULT now(),
  started_at       timestamptz,
  finished_at      timestamptz,
  CHECK ((state = 'needs_human') = (reason_code <> '')),
  CHECK ((state IN ('pr_draft', 'pr_created')) = (pr_number IS NOT NULL AND delivery <> '')),
  CHECK (state <> 'pr_created' OR delivery = 'ready')
);
-- At most one fix of an issue in flight.
CREATE UNIQUE INDEX fixes_one_active ON fixes (issue_id) WHERE state IN ('queued', 'fixing');
CREATE INDEX fixes_lease ON fixes (lease_until) WHERE state IN ('queued', 'fixing');
CREATE INDEX fixes_issue ON fixes (issue_id, created_at);

-- Every command run as evidence, executed and recorded, never claimed. tier: setup (install),
-- E0 (build), E1 (suite against the untouched baseline), E2 (the declared regression test). phase:
-- baseline (the untouched commit) or fix. met: the check's expectation held (E2 on the baseline
-- expects a failing test); a run with infra_error set never meets anything.
CREATE TABLE fix_evidence (
  id           bigserial PRIMARY KEY,
  fix_id       uuid NOT NULL REFERENCES fixes (id) ON DELETE CASCADE,
  attempt      integer NOT NULL,
  seq          integer NOT NULL,
  tier         text NOT NULL CHECK (tier IN ('setup', 'E0', 'E1', 'E2')),
  phase        text NOT NULL CHECK (phase IN ('baseline', 'fix')),
  command      text NOT NULL,
  exit_code    integer,
  timed_out    boolean NOT NULL DEFAULT false,
  output_capped boolean NOT NULL DEFAULT false,
  infra_error  text NOT NULL DEFAULT '',
  met          boolean NOT NULL,
  excerpt      text NOT NULL DEFAULT '',
  duration_ms  integer NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (fix_id, attempt, seq),
  CHECK (NOT (met AND infra_error <> ''))
);
