-- The identity of the pause a paused run waits at: a resume takes the run only at the pause its
-- decisions were made for. Runs paused before have none, and are taken by decisions for none.
ALTER TABLE tool_sdk_runs ADD COLUMN pause_id TEXT NOT NULL DEFAULT '';
