-- The history of decisions: each pause a run was resumed from, with who decided what and what
-- came of it (JSON), kept after the run ends so that a restart or another process shows it.
-- Written as the run is taken from its pause, and again, in place, when it stops.
CREATE TABLE tool_sdk_decided (
    run_id     TEXT NOT NULL,
    pause_id   TEXT NOT NULL,
    decided_at TIMESTAMPTZ NOT NULL,
    record     TEXT NOT NULL,
    PRIMARY KEY (run_id, pause_id)
);
CREATE INDEX tool_sdk_decided_newest ON tool_sdk_decided (decided_at DESC, run_id DESC);
