-- Nonces of sealed tokens already used, until their tokens expire (Unix seconds): the replay
-- guard that every process sharing this file shares.
CREATE TABLE tool_sdk_used_tokens (
    nonce      TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
);
