-- Paused turns are kept as paused runs, in tool_sdk_runs, by every kind of pause.
DROP TABLE IF EXISTS tool_sdk_paused_turns;
