-- A project's own data limits (docs/retention.md, docs/quotas.md): how many days its events are
-- kept and how many events a minute it takes in. NULL: the service's default (SVC_RETENTION_DAYS,
-- SVC_PROJECT_EVENTS_PER_MINUTE). The web side owns projects and writes both from the settings
-- page. Additive only.
ALTER TABLE projects
  ADD COLUMN retention_days integer CHECK (retention_days BETWEEN 1 AND 3650),
  ADD COLUMN events_per_minute integer CHECK (events_per_minute BETWEEN 0 AND 100000000);
