-- Alerts (docs/alerts.md): per project, rules for a new issue, a regression and a spike; each
-- firing of a rule for an issue, keyed by (issue, rule, window) so it is recorded once; and the
-- deliveries that fold a project's firings into one chat message. The alerter actor owns the three
-- tables. Additive only.

-- A project's rules. No row for a kind: its default (new issue and regression on, spike off at
-- 100 events or 20 users in 60 minutes), which services/alerter/rules.ts holds.
CREATE TABLE alert_rules (
  project_id    uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  kind          text NOT NULL CHECK (kind IN ('new_issue', 'regression', 'spike')),
  enabled       boolean NOT NULL,
  -- A spike: more than spike_events events, or more than spike_users users, in spike_minutes minutes
  -- (0 turns that half off). Kept on every kind's row, read only for a spike.
  spike_events  integer NOT NULL DEFAULT 100 CHECK (spike_events BETWEEN 0 AND 10000000),
  spike_users   integer NOT NULL DEFAULT 20 CHECK (spike_users BETWEEN 0 AND 10000000),
  spike_minutes integer NOT NULL DEFAULT 60 CHECK (spike_minutes BETWEEN 1 AND 1440),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, kind)
);

-- One chat message folding the firings of a project that were pending when it was claimed for its
-- first post: a leased job of the job runtime (shared/jobs/) dispatched when due (not_before: the
-- end of the gather delay, then the next retry through an outage). The message is composed once,
-- at the first claim, and every retry sends it as it is.
CREATE TABLE alert_deliveries (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id   uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  state        text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'delivered', 'failed', 'broken')),
  attempts     integer NOT NULL DEFAULT 0,
  -- Posts made to the chat (attempts counts claims, and starts again after each outage's wait).
  sends        integer NOT NULL DEFAULT 0,
  not_before   timestamptz NOT NULL DEFAULT now(),
  -- NULL: not dispatched yet (dispatched when the gather delay ends, or by the sweep).
  lease_until  timestamptz,
  started_at   timestamptz,
  version      integer NOT NULL DEFAULT 1,
  message      text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  first_sent_at timestamptz,
  delivered_at timestamptz,
  error        text NOT NULL DEFAULT ''
);
CREATE INDEX alert_deliveries_due ON alert_deliveries (not_before) WHERE state = 'pending' AND lease_until IS NULL;
CREATE INDEX alert_deliveries_lease ON alert_deliveries (lease_until) WHERE state IN ('pending', 'sending');
-- The delivery still gathering (pending, no message yet) that a project's new firings join.
CREATE INDEX alert_deliveries_gathering ON alert_deliveries (project_id) WHERE state = 'pending' AND message IS NULL;

-- A rule that fired for an issue. window_start is the firing's own time: a rule fires for an issue
-- only when it has not in the hour before (checked under an advisory lock per issue and rule), and
-- the unique key refuses a second row for the same window whatever happens.
CREATE TABLE alert_firings (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id   uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  issue_id     uuid NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  kind         text NOT NULL CHECK (kind IN ('new_issue', 'regression', 'spike')),
  window_start timestamptz NOT NULL,
  fired_at     timestamptz NOT NULL DEFAULT now(),
  -- The numbers behind it (a spike's counts and thresholds) and the batch's receipt time.
  detail       jsonb NOT NULL DEFAULT '{}',
  -- NULL: recorded without a delivery (the project's chat is not connected, or broken).
  delivery_id  uuid REFERENCES alert_deliveries (id) ON DELETE SET NULL,
  UNIQUE (issue_id, kind, window_start)
);
CREATE INDEX alert_firings_recent ON alert_firings (issue_id, kind, window_start DESC);
CREATE INDEX alert_firings_project ON alert_firings (project_id, fired_at DESC);
CREATE INDEX alert_firings_delivery ON alert_firings (delivery_id) WHERE delivery_id IS NOT NULL;
