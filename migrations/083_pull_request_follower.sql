-- Following a fix pull request to its end (docs/fixes.md, "Following a pull request to its end"):
-- the code host's webhook, or the investigator's poller where the code host cannot reach the
-- service, tells a merged or closed pull request apart, and the fix episode ends merged or closed.
-- Additive: new columns are nullable or take a constant default; changed checks are NOT VALID.

-- The pull request's real state as last seen: '' (not yet seen), open, merged, closed.
ALTER TABLE fixes ADD COLUMN pr_state text NOT NULL DEFAULT '' CONSTRAINT fixes_pr_state_check CHECK (pr_state IN ('', 'open', 'merged', 'closed'));
ALTER TABLE fixes ADD COLUMN pr_merged_at timestamptz;
ALTER TABLE fixes ADD COLUMN pr_closed_at timestamptz;
ALTER TABLE fixes ADD COLUMN pr_merge_sha text NOT NULL DEFAULT '';
-- When the poller last read it: the oldest read first.
ALTER TABLE fixes ADD COLUMN pr_checked_at timestamptz;

-- The episode may end merged or closed; both keep the delivered pull request's number and delivery.
ALTER TABLE fixes DROP CONSTRAINT fixes_state_check;
ALTER TABLE fixes ADD CONSTRAINT fixes_state_check
  CHECK (state IN ('queued', 'fixing', 'pr_draft', 'pr_created', 'needs_human', 'merged', 'closed')) NOT VALID;
ALTER TABLE fixes DROP CONSTRAINT fixes_check1;
ALTER TABLE fixes ADD CONSTRAINT fixes_check1
  CHECK ((state IN ('pr_draft', 'pr_created', 'merged', 'closed')) = (pr_number IS NOT NULL AND delivery <> '')) NOT VALID;

-- What the poller reads: delivered pull requests not yet seen ended, the least recently read first.
CREATE INDEX fixes_pr_follow ON fixes (pr_checked_at NULLS FIRST, created_at) WHERE state IN ('pr_draft', 'pr_created');
-- What a webhook delivery looks up: the fix of a repository's pull request.
CREATE INDEX fixes_pr_number ON fixes (pr_number) WHERE pr_number IS NOT NULL;

-- Code-host webhook deliveries taken (X-GitHub-Delivery): a replayed delivery is refused. Written
-- in the transaction of what the delivery changes, so a refused one leaves no row.
CREATE TABLE codehost_webhook_deliveries (
  delivery_id text PRIMARY KEY CHECK (length(delivery_id) <= 100),
  received_at timestamptz NOT NULL DEFAULT now(),
  event       text NOT NULL,
  action      text NOT NULL DEFAULT '',
  repo        text NOT NULL DEFAULT ''
);
CREATE INDEX codehost_webhook_deliveries_received ON codehost_webhook_deliveries (received_at);

-- The digest picks fixes whose pull request opened in its window, merged or closed since included.
CREATE INDEX fixes_project_finished_ended ON fixes (project_id, finished_at) WHERE state IN ('merged', 'closed');

-- Pull requests agents linked (issue_pull_requests, the tool server's table) are followed too:
-- these columns are the follower's (services/investigator/pull-requests/linked.ts), the rest stays
-- the tool server's. unfollowed: its address is not a pull request of the project's repository.
ALTER TABLE issue_pull_requests
  ADD COLUMN pr_state text NOT NULL DEFAULT '',
  ADD COLUMN pr_checked_at timestamptz,
  ADD COLUMN pr_ended_at timestamptz;
ALTER TABLE issue_pull_requests ADD CONSTRAINT issue_pull_requests_pr_state_check CHECK (pr_state IN ('', 'open', 'merged', 'closed', 'unfollowed')) NOT VALID;
CREATE INDEX issue_pull_requests_follow ON issue_pull_requests (pr_checked_at NULLS FIRST) WHERE pr_state IN ('', 'open');
