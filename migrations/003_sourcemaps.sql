-- Source maps uploaded with a source-map key (svc_sk_). The maps themselves live in the object
-- store under content-addressed keys; a row says which map serves which file of which release, or
-- which debug id. projects.sourcemaps_uploaded_at is the sourcemaps_uploaded fact.
CREATE TABLE sourcemaps (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id  uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  release     text NOT NULL DEFAULT '',
  url_path    text NOT NULL,
  debug_id    uuid,
  object_key  text NOT NULL,
  bytes       integer NOT NULL,
  uploaded_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (project_id, release, url_path)
);
CREATE UNIQUE INDEX sourcemaps_debug_id ON sourcemaps (project_id, debug_id) WHERE debug_id IS NOT NULL;

ALTER TABLE projects ADD COLUMN sourcemaps_uploaded_at timestamptz;
