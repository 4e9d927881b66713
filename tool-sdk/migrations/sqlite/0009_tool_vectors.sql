-- Tool search's vectors, kept so that a restart or another process embeds no tool twice: keyed
-- by the embedder's name (its endpoint, model and settings) and the SHA-256 of the text
-- embedded, so a changed tool is embedded again. A vector is its floats, little-endian.
CREATE TABLE tool_sdk_tool_vectors (
    embedder TEXT NOT NULL,
    content  TEXT NOT NULL,
    vector   BLOB NOT NULL,
    PRIMARY KEY (embedder, content)
);
