//! Every keyword the macros accept, in one place.

/// Keys of `#[tool(...)]`.
pub(crate) const NAME: &str = "name";
pub(crate) const DESCRIPTION: &str = "description";
pub(crate) const TIMEOUT: &str = "timeout";
pub(crate) const RETURN_DIRECT: &str = "return_direct";
pub(crate) const OVERRIDES_BUILT_IN: &str = "overrides_built_in";
pub(crate) const SKIP_PERMISSION: &str = "skip_permission";
pub(crate) const DEFER: &str = "defer";
pub(crate) const CRATE: &str = "crate";
pub(crate) const CONFIRM: &str = "confirm";
pub(crate) const COMPENSATE: &str = "compensate";
pub(crate) const READ_ONLY: &str = "read_only";
pub(crate) const DESTRUCTIVE: &str = "destructive";
pub(crate) const LONG_RUNNING: &str = "long_running";
pub(crate) const RESULT_LIMIT: &str = "result_limit";
pub(crate) const DIALECTS: &str = "dialects";

/// Keys `#[tool(...)]` accepts, for the "unknown key" error.
pub(crate) const TOOL_KEYS: &[&str] = &[
    NAME,
    DESCRIPTION,
    TIMEOUT,
    RETURN_DIRECT,
    OVERRIDES_BUILT_IN,
    SKIP_PERMISSION,
    DEFER,
    READ_ONLY,
    DESTRUCTIVE,
    LONG_RUNNING,
    RESULT_LIMIT,
    CONFIRM,
    COMPENSATE,
    DIALECTS,
    CRATE,
];

/// The dialects `dialects(...)` names: the name, the variant of `Dialect` it is, and its place
/// in `Dialect::ALL` (its bit in the set a tool is checked against; the UI cases of each
/// dialect hold the two crates to the same places).
pub(crate) const DIALECT_NAMES: &[(&str, &str, u8)] = &[
    ("openai_strict", "OpenAiStrict", 0),
    ("openai", "OpenAi", 1),
    ("anthropic", "Anthropic", 2),
    ("anthropic_strict", "AnthropicStrict", 3),
    ("gemini", "Gemini", 4),
    ("gemini_json_schema", "GeminiJsonSchema", 5),
    ("mcp", "Mcp", 6),
];
/// The table of a package's manifest that holds its settings for the macros.
pub(crate) const SETTINGS_TABLE: &str = "package.metadata.tool-sdk";
/// Keys that table accepts, for the "unknown key" error.
pub(crate) const SETTINGS_KEYS: &[&str] = &[DIALECTS];

/// Keys `#[tools(...)]` accepts, for the "unknown key" error.
pub(crate) const TOOLS_KEYS: &[&str] = &[DIALECTS, CRATE];

/// Values of `defer = "..."`.
pub(crate) const DEFER_VALUES: &[&str] = &["always", "auto", "never"];

/// Parameter attributes.
pub(crate) const ARG: &str = "arg";
pub(crate) const CONTEXT: &str = "context";
pub(crate) const DOC: &str = "doc";

/// Keys of `#[arg(...)]`.
pub(crate) const RENAME: &str = "rename";
pub(crate) const DEFAULT: &str = "default";
pub(crate) const UNCHECKED: &str = "unchecked";

/// Keys `#[arg(...)]` accepts, for the "unknown key" error.
pub(crate) const ARG_KEYS: &[&str] = &[RENAME, DESCRIPTION, DEFAULT, UNCHECKED];

/// The method attribute inside a `#[tools]` impl block.
pub(crate) const TOOL: &str = "tool";

/// The package name the runtime crate is published under.
pub(crate) const RUNTIME_PACKAGE: &str = "tool-sdk";

/// The runtime crate's module every generated path goes through.
pub(crate) const PRIVATE_MODULE: &str = "__private";

/// The parameters every compensating action takes before its context parameters: the tool's
/// arguments and its output.
pub(crate) const COMPENSATE_FIXED: usize = 2;
