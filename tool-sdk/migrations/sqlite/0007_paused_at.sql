-- When a paused run paused (Unix milliseconds), so that a screen can list the runs waiting for
-- a person, newest first. Runs paused before have 0, and list last.
ALTER TABLE tool_sdk_runs ADD COLUMN paused_at INTEGER NOT NULL DEFAULT 0;
CREATE INDEX tool_sdk_runs_paused_at ON tool_sdk_runs (paused_at DESC, id DESC)
    WHERE phase = 'paused';
