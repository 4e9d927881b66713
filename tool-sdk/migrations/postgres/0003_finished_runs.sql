-- Who finished each run, kept a day: an owner that stalled past its lease while another
-- finished the run is told so (Lost) when it comes to finish it, instead of succeeding.
CREATE TABLE tool_sdk_finished_runs (
    id          TEXT PRIMARY KEY,
    owner       TEXT NOT NULL,
    finished_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX tool_sdk_finished_runs_at ON tool_sdk_finished_runs (finished_at);
