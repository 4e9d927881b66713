//! The quickstart, run as a newcomer runs it: offline over its script, and over a model behind
//! the OpenAI API (fakellm, whose rules in `tests/fakellm/quickstart.yaml` tell the same
//! story). Without a terminal on stdin, the labelled rule decides the payment.

use std::process::{Command, Stdio};

/// The quickstart's output, run with `env` (every model variable cleared first).
fn quickstart(env: &[(&str, &str)]) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_quickstart"));
    for name in [
        "OPENAI_BASE_URL",
        "OPENAI_MODEL",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_MODEL",
        "ANTHROPIC_BASE_URL",
        "GEMINI_API_KEY",
        "GEMINI_MODEL",
        "GEMINI_BASE_URL",
    ] {
        command.env_remove(name);
    }
    let output = command
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("the quickstart runs");
    let stdout = String::from_utf8(output.stdout).expect("the output is UTF-8");
    assert!(
        output.status.success(),
        "the quickstart failed: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The lines of `output` that begin with each of `steps`, in order.
fn assert_steps(output: &str, steps: &[&str]) {
    let mut lines = output.lines();
    for step in steps {
        assert!(
            lines.any(|line| line.starts_with(step)),
            "no line starting `{step}` where expected in:\n{output}"
        );
    }
}

/// What every run of the quickstart shows, whichever model tells the story.
const STORY: &[&str] = &[
    r#"call       book_room {"city": "Lisbon", "nights": "two"}"#,
    "  error    invalid arguments for tool `book_room`: at `/nights`: expected u32, found string \"two\" (back to the model)",
    "call       book_room {",
    "  result   Lisbon-2N",
    "waits      Allow pay {",
    "  rule     stdin is not a terminal, so no one is asked: \"deny what no one can approve\"",
    "  denied   the model reads: denied: no one was at the terminal to approve it",
    "call       email {",
    "  error    tool `email` failed: cannot reach ana@example.com: mailbox full (the run fails)",
    "hotel      Lisbon-2N cancelled",
    "rollback   book_room [call_",
    "stopped    `email` failed after 4 rounds; 1 call(s) rolled back, newest first",
];

#[test]
fn offline_the_script_tells_the_story_and_says_it_is_a_script() {
    let output = quickstart(&[]);
    assert!(
        output.starts_with(
            "model      scripted model (a stand-in replaying fixed replies, not a real model)\n"
        ),
        "{output}"
    );
    assert_steps(&output, STORY);
    assert!(
        !output.contains("call       pay"),
        "a denied payment never runs: {output}"
    );
    assert!(output.lines().count() <= 30, "{output}");
}

/// Has fakellm forget the conversations it saw: it knows one by its first user message, which
/// every run of the quickstart shares, and keeps its tool results from run to run.
fn forget_conversations(base_url: &str) {
    tool_sdk_tests::plain_http::request(base_url, "POST", "/_fakellm/reset");
}

#[test]
fn a_model_behind_the_openai_api_tells_the_same_story() {
    let url = std::env::var("TOOL_SDK_FAKELLM_URL_QUICKSTART").expect(
        "TOOL_SDK_FAKELLM_URL_QUICKSTART is not set: scripts/test.sh serves \
         tests/fakellm/quickstart.yaml there",
    );
    forget_conversations(&url);
    let output = quickstart(&[
        ("OPENAI_BASE_URL", &url),
        ("OPENAI_MODEL", "fakellm"),
        ("OPENAI_API_KEY", "not-needed"),
    ]);
    assert!(output.starts_with("model      "), "{output}");
    assert!(!output.contains("scripted"), "{output}");
    assert_steps(&output, STORY);
}
