-- A test project and its ingest key for local development and end-to-end tests. Safe to run
-- twice. The key is public knowledge: never use this project for real data.
--   ingest key: svc_pk_seede2e00001_DevOnlyIngestKeyNotASecret000001
INSERT INTO projects (id, name)
VALUES ('00000000-0000-4000-8000-00000000e2e0', 'e2e')
ON CONFLICT (id) DO NOTHING;

INSERT INTO environments (project_id, name)
VALUES ('00000000-0000-4000-8000-00000000e2e0', 'development')
ON CONFLICT (project_id, name) DO NOTHING;

INSERT INTO api_keys (id, project_id, kind, secret_hash, label)
VALUES ('seede2e00001', '00000000-0000-4000-8000-00000000e2e0', 'ingest',
        sha256(convert_to('DevOnlyIngestKeyNotASecret000001', 'UTF8')), 'seed-e2e development key')
ON CONFLICT (id) DO NOTHING;
