-- The pauses runs wait at, kept apart from the runs' rows: pausing a run adds its pause here,
-- taking the run back removes it, in one transaction with the row. A paused row put back after
-- its run was taken names a pause no longer here, and is refused: putting a row back cannot undo
-- what a take consumed. The runs waiting when this table is made wait here too.
CREATE TABLE tool_sdk_waiting_pauses (
    run_id   TEXT NOT NULL,
    pause_id TEXT NOT NULL,
    PRIMARY KEY (run_id, pause_id)
);
INSERT INTO tool_sdk_waiting_pauses (run_id, pause_id)
    SELECT id, pause_id FROM tool_sdk_runs WHERE phase = 'paused';
