-- When a paused run's waiting calls may no longer be allowed (Unix milliseconds), when its
-- policy gave the pause a deadline: so that the overdue runs are found without reading every
-- paused one. The paused state holds the deadline too, sealed with it where rows are sealed,
-- and that copy is the one checked; this column only finds.
ALTER TABLE tool_sdk_runs ADD COLUMN deadline INTEGER;
CREATE INDEX tool_sdk_runs_deadline ON tool_sdk_runs (deadline)
    WHERE phase = 'paused' AND deadline IS NOT NULL;
