//! The names a newcomer meets in a first program, counted to keep that program small.
//!
//! A program's imports are read with syn; the rest is read from its text, as a newcomer reads
//! it: names in attributes (`#[tool(confirm)]`) and inside macro calls count as much as any.

use std::collections::BTreeSet;

use super::paths::use_leaves;

/// The names a newcomer learns from `program`: what it imports from `tool_sdk` or names by a
/// `tool_sdk::` path, the keys of its `#[tool(...)]` attributes, the names the macro generates
/// (`…Tool`, `…Args`), and the functions and methods it calls on them (`Type::function(`,
/// `.method(`). The standard library's names and macros are not counted.
pub fn names_learned(program: &str) -> BTreeSet<String> {
    let code: String = program
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut names = BTreeSet::new();
    // What it imports, read by syn: a `use` may span lines and group its names.
    let syntax = syn::parse_file(program).expect("the program parses");
    for item in &syntax.items {
        let syn::Item::Use(use_item) = item else {
            continue;
        };
        for leaf in use_leaves(&use_item.tree) {
            if leaf.first().is_some_and(|first| first == "tool_sdk") && leaf.len() > 1 {
                names.extend(leaf.last().map(ToString::to_string));
            }
        }
    }
    for line in code.lines() {
        if let Some(path) = line.split("tool_sdk::").nth(1) {
            let last = path
                .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .next()
                .and_then(|path| path.rsplit("::").next());
            names.extend(last.filter(|name| !name.is_empty()).map(str::to_owned));
        }
        if let Some(keys) = line.trim().strip_prefix("#[tool(") {
            // Each key is a word at the top level of the attribute, before `=`, `,` or `)`.
            let mut depth = 0;
            let mut word = String::new();
            for c in keys.chars() {
                match c {
                    '(' | '[' | '{' | '|' if depth == 0 && c == '|' => depth = 1,
                    '|' if depth == 1 => depth = 0,
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' if depth > 0 => depth -= 1,
                    _ => {}
                }
                if depth == 0 && (c.is_alphanumeric() || c == '_') {
                    word.push(c);
                } else {
                    if !word.is_empty() && (c == '=' || c == ',' || c == ')' || c == ' ') {
                        names.insert(std::mem::take(&mut word));
                    }
                    word.clear();
                }
            }
        }
    }
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    for word in &words {
        let generated = word.chars().next().is_some_and(char::is_uppercase)
            && (word.ends_with("Tool") || word.ends_with("Args"))
            && word.len() > 4;
        if generated {
            names.insert((*word).to_owned());
        }
    }
    // Functions and methods: `.name(` anywhere, `Type::name(` on a name counted already.
    let known: Vec<String> = names.iter().cloned().collect();
    for (at, _) in code.match_indices('(') {
        let before = &code[..at];
        let name: String = before
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let rest = &before[..before.len() - name.len()];
        let on_value = rest.ends_with('.');
        let on_known = known
            .iter()
            .any(|owner| rest.ends_with(&format!("{owner}::")));
        if !name.is_empty() && (on_value || on_known) {
            names.insert(name);
        }
    }
    names
}
