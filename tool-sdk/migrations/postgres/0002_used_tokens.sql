-- Nonces of sealed tokens already used, until their tokens expire (Unix seconds): the replay
-- guard that every replica sharing this database shares.
CREATE TABLE tool_sdk_used_tokens (
    nonce      TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL
);
