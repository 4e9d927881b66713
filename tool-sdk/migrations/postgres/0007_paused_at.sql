-- When a paused run paused (the server's clock), so that a screen can list the runs waiting for
-- a person, newest first. Runs paused before have none, and list last.
ALTER TABLE tool_sdk_runs ADD COLUMN paused_at TIMESTAMPTZ;
CREATE INDEX tool_sdk_runs_paused_at ON tool_sdk_runs (paused_at DESC NULLS LAST, id DESC)
    WHERE phase = 'paused';
