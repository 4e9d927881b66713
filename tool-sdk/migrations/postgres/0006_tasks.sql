-- Long work outliving its request (an MCP server's tasks). Times are the server's clock.
CREATE TABLE tool_sdk_tasks (
    id               TEXT PRIMARY KEY,
    -- 'working' until it ends as 'completed', 'failed' or 'cancelled'.
    state            TEXT NOT NULL
                     CHECK (state IN ('working', 'completed', 'failed', 'cancelled')),
    -- The result of a completed task or the error of a failed one, as JSON.
    outcome          TEXT,
    status_message   TEXT,
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
    -- A working task whose lease ran out was abandoned: its owner stopped renewing it.
    lease_until      TIMESTAMPTZ NOT NULL,
    created_at       TIMESTAMPTZ NOT NULL,
    updated_at       TIMESTAMPTZ NOT NULL,
    -- Forgotten from then on.
    expires_at       TIMESTAMPTZ NOT NULL
);

CREATE INDEX tool_sdk_tasks_expiry ON tool_sdk_tasks (expires_at);
