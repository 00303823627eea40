-- Fingerprint version 3 and issues told in source terms (docs/grouping.md).
-- A project groups with one version. Projects that exist keep version 2, so their issues keep
-- their events; new projects start on 3. `svc grouping-upgrade` moves a project.
ALTER TABLE projects ADD COLUMN grouping_version integer NOT NULL DEFAULT 2;
ALTER TABLE projects ALTER COLUMN grouping_version SET DEFAULT 3;

-- noise: why the issue's events are noise ('' when they are not); such issues are hidden from the
-- issue list by default, never dropped. detail_quality: how well the issue's title and culprit
-- read in source terms (0 none, 1 bundle location, 2 mapped, 3 mapped with source text); a
-- better-symbolicated event replaces both.
ALTER TABLE issues
  ADD COLUMN noise text NOT NULL DEFAULT '',
  ADD COLUMN detail_quality smallint NOT NULL DEFAULT 0;
