//! Reads what the macros emit for samples of every form they accept (and of forms they reject),
//! and fails on any path that does not go through the runtime crate's `__private` module, on any
//! prelude name left unrooted, and on an expansion without the version marker.

use proc_macro2::{TokenStream, TokenTree};
use quote::quote;

use crate::expand::{free, inline, set};

/// Names the runtime crate exports at its root, which generated code must reach through
/// `__private` only.
const RUNTIME_ITEMS: &[&str] = &[
    "Tool",
    "ToolOptions",
    "ToolContext",
    "ToolFuture",
    "ToolDefinition",
    "ToolOutput",
    "ToolSet",
    "Confirm",
    "Defer",
    "InlineTool",
    "FromToolContext",
    "ToolError",
    "ToolResult",
    "IntoToolOutput",
];

/// Names of the standard prelude, which a user's crate may shadow: generated code roots them.
#[rustfmt::skip]
const PRELUDE: &[&str] = &[
    "Option", "Some", "None", "Result", "Ok", "Err", "Box", "Vec", "String", "ToString",
    "ToOwned", "Default", "Clone", "Copy", "Debug", "Send", "Sync", "Sized", "Fn", "FnMut",
    "FnOnce", "AsyncFn", "Drop", "From", "Into", "Iterator", "IntoIterator", "Future",
    "IntoFuture", "PartialEq", "Eq", "drop", "vec", "format", "panic", "unreachable",
];

/// Crates a rooted path may start with.
const ROOTS: &[&str] = &["core", "std", "tool_sdk", "my_sdk"];

/// The samples, each expanded by its macro; they write no prelude name, so any in the output is
/// the macros'.
fn expansions() -> Vec<(&'static str, TokenStream)> {
    vec![
        (
            "free fn with every option",
            free::expand(
                quote!(
                    name = "get_weather",
                    timeout = "5s",
                    return_direct,
                    overrides_built_in,
                    skip_permission,
                    defer = "auto",
                    read_only,
                    long_running,
                    destructive = false,
                    confirm = needs_ok,
                    compensate = undo,
                    dialects(openai_strict, gemini)
                ),
                quote! {
                    /// Gets the weather.
                    pub async fn get_weather(
                        /// The city.
                        city: &str,
                        #[arg(rename = "days", default = 3)] span: u8,
                        #[arg(default)] units: Units,
                        #[context] call: CallId,
                    ) -> Outcome<u8, Problem> { Outcome::default() }
                },
            ),
        ),
        (
            "sync free fn, confirm always",
            free::expand(
                quote!(confirm),
                quote! {
                    /// Adds.
                    fn add(a: i64, b: i64) -> i64 { a + b }
                },
            ),
        ),
        (
            "free fn with an explicit crate path",
            free::expand(
                quote!(crate = ::my_sdk, compensate = |args, out: u8| {}),
                quote! {
                    /// Adds.
                    fn add(a: i64) {}
                },
            ),
        ),
        (
            "free fn with errors (stand-in)",
            free::expand(
                quote!(name = "bad name"),
                quote! {
                    fn add((a, b): (i64, i64)) {}
                },
            ),
        ),
        (
            "tool set",
            set::expand(
                TokenStream::new(),
                quote! {
                    impl Agency {
                        /// Books.
                        #[tool(confirm = costly, compensate = cancel)]
                        async fn book(&self, to: Place) -> Booking { Booking::default() }

                        /// Looks.
                        #[tool(defer)]
                        fn look(query: Place, #[context] state: State<Agency>) -> u8 { 0 }

                        fn costly(&self, to: &Place) -> bool { true }

                        async fn cancel(&self, args: BookArgs, booked: Booking) {}
                    }
                },
            ),
        ),
        (
            "tool set with errors (stand-in)",
            set::expand(
                TokenStream::new(),
                quote! {
                    impl Agency {
                        #[tool]
                        fn book(self) {}
                    }
                },
            ),
        ),
        (
            "inline tool",
            inline::expand(quote! {
                /// Holds a seat.
                #[tool(name = "hold", confirm = |seat: &u8| true, compensate = async move |args, hold: u8| {})]
                move |
                    /// The seat.
                    seat: u8,
                    #[context] call: CallId,
                | async move { seat }
            }),
        ),
        (
            "inline tool with errors (stand-in)",
            inline::expand(quote! {
                #[tool(name = "bad name")]
                |seat: u8| seat
            }),
        ),
    ]
}

/// One token of an expansion, with groups opened and closed in line.
#[derive(PartialEq)]
enum Tok {
    Ident(String),
    Punct(char),
    Literal(String),
    Open,
    Close,
}

impl Tok {
    fn text(&self) -> &str {
        match self {
            Tok::Ident(text) | Tok::Literal(text) => text,
            _ => "",
        }
    }
}

/// `tokens` in one sequence.
fn flatten(tokens: TokenStream, out: &mut Vec<Tok>) {
    for token in tokens {
        match token {
            TokenTree::Group(group) => {
                out.push(Tok::Open);
                flatten(group.stream(), out);
                out.push(Tok::Close);
            }
            TokenTree::Ident(ident) => out.push(Tok::Ident(ident.to_string())),
            TokenTree::Punct(punct) => out.push(Tok::Punct(punct.as_char())),
            TokenTree::Literal(literal) => out.push(Tok::Literal(literal.to_string())),
        }
    }
}

fn is_colon(token: Option<&Tok>) -> bool {
    token == Some(&Tok::Punct(':'))
}

/// Whether the identifier at `i` follows `::`.
fn after_path_separator(tokens: &[Tok], i: usize) -> bool {
    i >= 2 && is_colon(tokens.get(i - 1)) && is_colon(tokens.get(i - 2))
}

/// The text of the token `back` places before `i`.
fn before(tokens: &[Tok], i: usize, back: usize) -> &str {
    i.checked_sub(back)
        .and_then(|j| tokens.get(j))
        .map_or("", Tok::text)
}

/// Whether the `::` at `i` (its first colon) starts a path: nothing path-like before it.
fn starts_rooted_path(tokens: &[Tok], i: usize) -> bool {
    match i.checked_sub(1).and_then(|j| tokens.get(j)) {
        None => true,
        Some(Tok::Ident(_)) => false,
        // `<T as Trait>::item` continues a path; `-> ::a`, `=> ::a` start one.
        Some(Tok::Punct('>')) => matches!(
            i.checked_sub(2).and_then(|j| tokens.get(j)),
            Some(Tok::Punct('-' | '='))
        ),
        Some(Tok::Punct(c)) => *c != ':',
        Some(_) => true,
    }
}

fn problems(tokens: TokenStream) -> Vec<String> {
    let mut flat = Vec::new();
    flatten(tokens, &mut flat);
    let mut problems = Vec::new();
    let mut i = 0;
    while i < flat.len() {
        // A rooted path: `::` with nothing path-like before it.
        if is_colon(flat.get(i)) && is_colon(flat.get(i + 1)) && starts_rooted_path(&flat, i) {
            let first = flat.get(i + 2).map_or("", Tok::text);
            if !ROOTS.contains(&first) {
                problems.push(format!("a rooted path starts with `{first}`"));
            }
            if first == "tool_sdk" || first == "my_sdk" {
                let second = flat.get(i + 5).map_or("", Tok::text);
                if second != "__private" {
                    problems.push(format!("`::{first}::{second}` is not under `__private`"));
                }
            }
            i += 2;
            continue;
        }
        match &flat[i] {
            Tok::Ident(name) => {
                let name = name.as_str();
                let rooted = after_path_separator(&flat, i);
                if RUNTIME_ITEMS.contains(&name) && !rooted {
                    problems.push(format!("`{name}` is named without a path"));
                }
                if RUNTIME_ITEMS.contains(&name) && rooted && before(&flat, i, 3) != "__private" {
                    problems.push(format!("`{name}` is named outside `__private`"));
                }
                if PRELUDE.contains(&name) && !rooted {
                    problems.push(format!("the prelude name `{name}` is not rooted"));
                }
            }
            Tok::Literal(text)
                if text.contains("schemars") && !text.contains("::__private::schemars") =>
            {
                problems.push(format!("the path {text} is not under `__private`"));
            }
            _ => {}
        }
        i += 1;
    }
    problems
}

#[test]
fn generated_code_names_the_runtime_crate_through_private_only() {
    let mut failures = Vec::new();
    for (sample, tokens) in expansions() {
        for problem in problems(tokens) {
            failures.push(format!("{sample}: {problem}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn every_expansion_checks_the_version() {
    let marker = crate::resolve::version_marker().to_string();
    for (sample, tokens) in expansions() {
        let mut flat = Vec::new();
        flatten(tokens, &mut flat);
        let found = flat.iter().enumerate().any(|(i, token)| {
            token.text() == marker
                && after_path_separator(&flat, i)
                && before(&flat, i, 3) == "__private"
        });
        assert!(found, "{sample}: no `__private::{marker}`");
    }
}

#[test]
fn the_check_finds_what_it_looks_for() {
    // The checker itself fails on each kind of problem, so a pass above means something.
    let bad = [
        quote!(impl ::tool_sdk::Tool for X {}),
        quote!(impl Tool for X {}),
        quote!(
            fn f() -> Option<u8> {}
        ),
        quote!(::serde::Deserialize),
        quote!(
            #[schemars(crate = "::tool_sdk::schemars")]
            struct S;
        ),
        quote!(
            fn f() -> ::tool_sdk::run::Loop {}
        ),
    ];
    for tokens in bad {
        let text = tokens.to_string();
        assert!(!problems(tokens).is_empty(), "not caught: {text}");
    }
    let good =
        quote!(impl ::tool_sdk::__private::Tool for X { fn f() -> ::core::option::Option<u8> {} });
    assert!(problems(good).is_empty());
}
