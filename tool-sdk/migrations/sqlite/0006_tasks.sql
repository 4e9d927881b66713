-- Long work outliving its request (an MCP server's tasks). Times are Unix milliseconds.
CREATE TABLE tool_sdk_tasks (
    id               TEXT PRIMARY KEY,
    -- 'working' until it ends as 'completed', 'failed' or 'cancelled'.
    state            TEXT NOT NULL
                     CHECK (state IN ('working', 'completed', 'failed', 'cancelled')),
    -- The result of a completed task or the error of a failed one, as JSON.
    outcome          TEXT,
    status_message   TEXT,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    -- A working task whose lease ran out was abandoned: its owner stopped renewing it.
    lease_until      INTEGER NOT NULL,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    -- Forgotten from then on.
    expires_at       INTEGER NOT NULL
);

CREATE INDEX tool_sdk_tasks_expiry ON tool_sdk_tasks (expires_at);
