//! The crates' layouts are their data flow. In the runtime crate (`tool-sdk/src`) each stage
//! module uses only the stages listed before it in `lib.rs`, no code reaches an item through a
//! root re-export (which would hide the stage it comes from), and the files of one stage import
//! each other without a cycle; in the macros crate (`tool-sdk-macros/src`) no files import each
//! other in a cycle. This test parses the sources (the readers are in the support library's
//! `layout` module), so a misplaced import fails here, naming file and line.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use tool_sdk_tests::layout::graph::{cycles_among, find_cycles, import_edges};
use tool_sdk_tests::layout::items::{defined_items, public_names};
use tool_sdk_tests::layout::learned::names_learned;
use tool_sdk_tests::layout::paths::{references, Reference};
use tool_sdk_tests::layout::source::{read_crate, SourceFile};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-sdk/src")
}

fn macros_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-sdk-macros/src")
}

/// The runtime's crate root, parsed.
fn lib() -> SourceFile {
    let source = fs::read_to_string(src().join("lib.rs")).expect("lib.rs is readable");
    SourceFile::parse("lib.rs", &source)
}

/// The stage modules in the order `lib.rs` declares them.
fn stages() -> Vec<String> {
    lib()
        .syntax
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Mod(module) if matches!(module.vis, syn::Visibility::Public(_)) => {
                Some(module.ident.to_string())
            }
            _ => None,
        })
        .collect()
}

/// The files of the stages: the runtime's files without its root and the macros' private
/// re-exports (`private.rs`), which are not stages.
fn stage_files(src: &Path) -> Vec<SourceFile> {
    read_crate(src)
        .into_iter()
        .filter(|file| !file.module.is_empty() && file.module != ["private"])
        .collect()
}

#[test]
fn lib_declares_the_stages_in_order() {
    assert_eq!(
        stages(),
        [
            "define",
            "register",
            "describe",
            "model",
            "store",
            "gate",
            "compensate",
            "run",
            "mcp",
            "approvals",
            "__private"
        ],
        "lib.rs declares the stages in dependency order, then the macros' private module"
    );
}

#[test]
fn every_stage_uses_only_the_stages_before_it() {
    let problems = stage_order_problems(&src());
    assert!(
        problems.is_empty(),
        "layout broken:\n{}",
        problems.join("\n")
    );
}

/// Each use of a later stage, or of the crate root, by a stage file of the crate at `src`, as
/// `file:line: what`.
fn stage_order_problems(src: &Path) -> Vec<String> {
    let order: Vec<String> = stages().into_iter().filter(|s| s != "__private").collect();
    let rank = |stage: &str| order.iter().position(|s| s == stage);
    assert!(
        order.len() <= 12,
        "at most 12 top-level modules, found {order:?}"
    );
    let mut problems = Vec::new();
    for file in stage_files(src) {
        let own = &file.module[0];
        let Some(own_rank) = rank(own) else {
            problems.push(format!(
                "{}: `{own}` is not a stage declared in lib.rs",
                file.path.display()
            ));
            continue;
        };
        for reference in references(&file.syntax) {
            let target = match reference.supers {
                None => reference.segments.first().cloned(),
                Some(supers) if supers >= file.module.len() => {
                    // `super` past the stage's own module: the crate root.
                    reference.segments.first().cloned()
                }
                Some(_) => continue,
            };
            let Some(target) = target else { continue };
            let place = format!("{}:{}", file.path.display(), reference.line);
            match rank(&target) {
                Some(target_rank) if target_rank > own_rank => problems.push(format!(
                    "{place}: `{own}` uses `{target}`, a later stage (`{}`)",
                    reference.path()
                )),
                Some(_) => {}
                None => problems.push(format!(
                    "{place}: `crate::{}` goes through the crate root; name the stage",
                    reference.path()
                )),
            }
        }
    }
    problems
}

#[test]
fn the_files_of_a_stage_import_each_other_without_a_cycle() {
    let cycles = stage_cycles(&src());
    assert!(
        cycles.is_empty(),
        "files importing each other in a cycle:\n{}",
        cycles.join("\n")
    );
}

/// The cycles among the files of each stage of the crate at `src`.
fn stage_cycles(src: &Path) -> Vec<String> {
    let files = stage_files(src);
    let mut stages_seen: Vec<&String> = files.iter().map(|f| &f.module[0]).collect();
    stages_seen.dedup();
    let mut cycles = Vec::new();
    for stage in stages_seen {
        let members: Vec<&SourceFile> = files.iter().filter(|f| &f.module[0] == stage).collect();
        cycles.extend(cycles_among(&members));
    }
    cycles
}

/// The macros crate has no stages, but the same rule for its files: what imports what reads one
/// way, so a file can be understood (and moved) without the files that use it.
#[test]
fn the_files_of_the_macros_crate_import_each_other_without_a_cycle() {
    let cycles = crate_cycles(&macros_src());
    assert!(
        cycles.is_empty(),
        "files of tool-sdk-macros/src importing each other in a cycle:\n{}",
        cycles.join("\n")
    );
}

/// The cycles among all the files of the crate at `src`, its root included.
fn crate_cycles(src: &Path) -> Vec<String> {
    let files = read_crate(src);
    assert!(
        files.iter().any(|f| f.module.is_empty()) && files.len() > 1,
        "{} holds a crate's files",
        src.display()
    );
    let members: Vec<&SourceFile> = files.iter().collect();
    cycles_among(&members)
}

/// The references of `source`, parsed as the file at `path`, as `(line, supers, path)`.
fn found(path: &str, source: &str) -> Vec<(usize, Option<usize>, String)> {
    references(&SourceFile::parse(path, source).syntax)
        .into_iter()
        .map(|r: Reference| (r.line, r.supers, r.path()))
        .collect()
}

#[test]
fn the_checks_see_what_they_must() {
    // A later stage named from an earlier one, through a `use` group over lines: each leaf on
    // its own line.
    assert_eq!(
        found(
            "a.rs",
            "use crate::{\n    define::Tool,\n    run::ToolLoop,\n};\n"
        ),
        [
            (2, None, "define::Tool".to_owned()),
            (3, None, "run::ToolLoop".to_owned())
        ]
    );
    // Comments, doc comments, strings and unit tests do not count; code after a unit test does.
    assert_eq!(
        found(
            "a.rs",
            "/// See [`crate::run::ToolLoop`].\nfn f() { let s = \"crate::run\"; }\n// crate::run\n\
             #[cfg(test)]\nuse crate::run;\n#[cfg(test)]\nmod tests { use crate::run::A; }\n\
             #[cfg(all(test, feature = \"x\"))]\nfn g() { crate::run::b() }\nuse crate::store::RunId;\n",
        ),
        [(10, None, "store::RunId".to_owned())]
    );
    // `super` paths are counted, with how far they climb; `self::` and the file's own child
    // modules start in its module.
    assert_eq!(
        found(
            "a.rs",
            "mod round;\nuse super::super::store::RunId;\nuse self::x::Y;\nuse round::{self, End};\n"
        ),
        [
            (2, Some(2), "store::RunId".to_owned()),
            (3, Some(0), "x::Y".to_owned()),
            (4, Some(0), "round".to_owned()),
            (4, Some(0), "round::End".to_owned())
        ]
    );
    // Paths in code count wherever syn parses them: types, expressions, patterns, generic
    // arguments, attributes; visibilities and single words do not.
    assert_eq!(
        found(
            "a.rs",
            "#[derive(crate::define::Derive)]\npub(crate) fn f(x: Option<crate::model::Message>) {\n\
             let crate::run::Status::Done = crate::store::load() else { return };\n}\n\
             pub(in crate::gate) struct S;\n",
        ),
        [
            (1, None, "define::Derive".to_owned()),
            (2, None, "model::Message".to_owned()),
            (3, None, "run::Status::Done".to_owned()),
            (3, None, "store::load".to_owned())
        ]
    );
    // Macro calls are tokens to syn; the paths in them still count, groups included, and a path
    // that only continues another (`::tool_sdk::crate::…` would be one) does not.
    assert_eq!(
        found(
            "a.rs",
            "fn f() { quote! { crate::run::A }; assert!(matches!(x, crate::gate::{B, c::D})); \
             format!(\"{}\", ::other::crate::x); }\n",
        ),
        [
            (1, None, "run::A".to_owned()),
            (1, None, "gate::B".to_owned()),
            (1, None, "gate::c::D".to_owned())
        ]
    );
    // Inline modules: `super` inside one climbs to the file's module first.
    assert_eq!(
        found(
            "a.rs",
            "mod inner {\n    use super::Thing;\n    use super::super::Other;\n}\n"
        ),
        [
            (2, Some(0), "Thing".to_owned()),
            (3, Some(1), "Other".to_owned())
        ]
    );
    // A cycle of two files is found.
    let edges = BTreeMap::from([(0, BTreeSet::from([1])), (1, BTreeSet::from([0]))]);
    assert_eq!(find_cycles(&edges), [vec![0, 1]]);
    // Two files importing each other's functions are a cycle, as `expand/args.rs` and
    // `expand/decoder.rs` of the macros crate were before the functions both need moved to
    // `expand/field.rs`.
    let args = SourceFile::parse(
        "expand/args.rs",
        "use crate::expand::decoder::decoder;\n\
         pub(crate) fn default_fn_ident() {}\npub(crate) fn field_type() {}\n",
    );
    let decoder = SourceFile::parse(
        "expand/decoder.rs",
        "use crate::expand::args::{default_fn_ident, field_type};\npub(crate) fn decoder() {}\n",
    );
    let field = SourceFile::parse(
        "expand/field.rs",
        "pub(crate) fn default_fn_ident() {}\npub(crate) fn field_type() {}\n",
    );
    let index = SourceFile::parse(
        "expand/mod.rs",
        "pub(crate) mod args;\npub(crate) mod decoder;\npub(crate) mod field;\n",
    );
    assert_eq!(
        cycles_among(&[&args, &decoder, &index]),
        ["expand/args.rs → expand/decoder.rs"]
    );
    // With the functions in a file of their own, it is gone.
    let args = SourceFile::parse(
        "expand/args.rs",
        "use crate::expand::decoder::decoder;\nuse crate::expand::field::field_type;\n",
    );
    let decoder = SourceFile::parse(
        "expand/decoder.rs",
        "use crate::expand::field::{default_fn_ident, field_type};\npub(crate) fn decoder() {}\n",
    );
    let files = [&args, &decoder, &field, &index];
    assert_eq!(
        import_edges(&files),
        BTreeMap::from([(0, BTreeSet::from([1, 2])), (1, BTreeSet::from([2]))])
    );
    assert!(cycles_among(&files).is_empty());
    // An index's re-exports are not its dependencies; what else it uses is, and an item it
    // re-exports resolves to the file that defines it.
    let index = SourceFile::parse(
        "run/mod.rs",
        "mod round;\nmod summary;\npub use round::CallSummary;\npub(crate) use summary::{\n  B,\n};\n\
         use round::RoundEnd;\n",
    );
    let round = SourceFile::parse(
        "run/round.rs",
        "pub struct CallSummary;\npub struct RoundEnd;\nuse super::B;\n",
    );
    let summary = SourceFile::parse("run/summary.rs", "pub(crate) struct B;\n");
    assert_eq!(
        import_edges(&[&index, &round, &summary]),
        BTreeMap::from([(0, BTreeSet::from([1])), (1, BTreeSet::from([2]))])
    );
    let items = |source: &str| defined_items(&SourceFile::parse("a.rs", source).syntax.items);
    assert!(items("pub(crate) struct RunState {\n}\n").contains("RunState"));
    assert!(items("pub const fn x() {}\n").contains("x"));
    assert!(items("macro_rules! m { () => {} }\n").contains("m"));
    assert!(!items("#[cfg(test)]\nfn helper() {}\n").contains("helper"));
    // A file declared under `#[cfg(test)]` is a unit test's, and is not read.
    let dir = std::env::temp_dir().join(format!("layout-test-only-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("a scratch directory");
    fs::write(dir.join("lib.rs"), "mod a;\n#[cfg(test)]\nmod a_test;\n").expect("written");
    fs::write(dir.join("a.rs"), "use crate::a_test::x;\n").expect("written");
    fs::write(dir.join("a_test.rs"), "use crate::a::x;\n").expect("written");
    let read: Vec<PathBuf> = read_crate(&dir).into_iter().map(|f| f.path).collect();
    fs::remove_dir_all(&dir).expect("removed");
    assert_eq!(read, [PathBuf::from("a.rs"), PathBuf::from("lib.rs")]);
    // The crate root's names: public modules unless hidden, re-exports by the name they give.
    let root = SourceFile::parse(
        "lib.rs",
        "pub mod define;\nmod inner;\n#[doc(hidden)]\npub mod __private;\n\
         pub use define::{Tool, ToolError as Error};\npub(crate) use define::Hidden;\n\
         pub use macros::tool;\n",
    );
    assert_eq!(
        public_names(&root.syntax),
        ["define", "Tool", "Error", "tool"]
    );
}

/// The names a user finds at the crate root: its public modules and what it re-exports (the
/// macros' hidden module aside).
fn root_names() -> Vec<String> {
    public_names(&lib().syntax)
}

#[test]
fn the_crate_root_is_small() {
    let names = root_names();
    // The stages are the modules `lib_declares_the_stages_in_order` pins; besides them, the
    // root re-exports what a first program needs, and little more.
    let stages = stages();
    let reexported: Vec<_> = names.iter().filter(|name| !stages.contains(name)).collect();
    assert!(
        reexported.len() <= 16,
        "{} names re-exported at the crate root, at most 16: {reexported:?}",
        reexported.len()
    );
    // What a first program needs is there.
    for needed in [
        "tool",
        "ToolRegistry",
        "ToolLoop",
        "LoopStatus",
        "Message",
        "define",
    ] {
        assert!(
            names.iter().any(|n| n == needed),
            "{needed} missing: {names:?}"
        );
    }
}

#[test]
fn the_first_program_is_the_quickstart() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = fs::read_to_string(root.join("README.md")).expect("README.md is readable");
    let quickstart = fs::read_to_string(root.join("examples/quickstart.rs"))
        .expect("examples/quickstart.rs is readable");
    let fence = "```rust,no_run\n";
    let start = readme.find(fence).expect("the README has a Rust program") + fence.len();
    let end = start + readme[start..].find("```").expect("the program ends");
    assert_eq!(
        &readme[start..end],
        quickstart,
        "the README's first program is examples/quickstart.rs, word for word"
    );
    let code: Vec<&str> = quickstart
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.trim_start().starts_with("//"))
        .collect();
    assert!(code.len() <= 25, "{} lines of code: {code:#?}", code.len());
    let names = names_learned(&quickstart);
    assert!(
        names.len() <= 10,
        "{} names to learn: {names:?}",
        names.len()
    );
    for feature in [
        "confirm",
        "compensate",
        "from_env_or",
        "with_terminal",
        "run",
    ] {
        assert!(
            names.contains(feature),
            "the first program shows {feature}: {names:?}"
        );
    }
}

#[test]
fn names_learned_are_counted_as_a_newcomer_meets_them() {
    let program = r#"use tool_sdk::{tool, ToolLoop};
/// Doc.
#[tool(confirm, compensate = |_, x: String| println!("{x}"), timeout = "5s")]
fn pay(booking: String) -> String { format!("{booking}") }
fn main() -> Result<(), tool_sdk::run::SetupError> {
    let agent = ToolLoop::from_env_or(SCRIPT, (PayTool,))?.with_terminal();
    agent.run("hi");
    Ok(())
}"#;
    let names: Vec<String> = names_learned(program).into_iter().collect();
    assert_eq!(
        names,
        [
            "PayTool",
            "SetupError",
            "ToolLoop",
            "compensate",
            "confirm",
            "from_env_or",
            "run",
            "timeout",
            "tool",
            "with_terminal"
        ]
    );
}
