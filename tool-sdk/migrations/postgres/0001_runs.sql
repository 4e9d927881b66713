-- Runs in progress or paused. A finished run is deleted with its entries.
CREATE TABLE tool_sdk_runs (
    id          TEXT PRIMARY KEY,
    phase       TEXT NOT NULL CHECK (phase IN ('running', 'paused')),
    -- The store instance that owns a running run, and until when (the server's clock).
    owner       TEXT,
    lease_until TIMESTAMPTZ,
    -- A paused run, as JSON, until it is taken back.
    paused      TEXT
);

-- Successful calls of compensable tools, in the order they were recorded.
CREATE TABLE tool_sdk_run_entries (
    seq             BIGSERIAL PRIMARY KEY,
    run_id          TEXT NOT NULL REFERENCES tool_sdk_runs (id) ON DELETE CASCADE,
    idempotency_key TEXT NOT NULL,
    entry           TEXT NOT NULL,
    -- NULL until rolled back; then 'done', the failure's message after 'failed: ', or the
    -- number of attempts that timed out after 'timed out: ' (tried again by recovery).
    compensated     TEXT,
    UNIQUE (run_id, idempotency_key)
);

-- Chat memory: each conversation's messages, as one JSON array.
CREATE TABLE tool_sdk_conversations (
    id       TEXT PRIMARY KEY,
    messages TEXT NOT NULL
);

-- Paused replies kept for the decision gate alone (without the loop).
CREATE TABLE tool_sdk_paused_turns (
    id   TEXT PRIMARY KEY,
    turn TEXT NOT NULL
);
