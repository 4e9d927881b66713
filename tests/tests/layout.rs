//! The runtime crate's layout is its data flow: each stage module of `tool-sdk/src` uses only the
//! stages listed before it in `lib.rs`, no code reaches an item through a root re-export (which
//! would hide the stage it comes from), and the files of one stage import each other without a
//! cycle. This test reads the sources, so a misplaced import fails here, naming file and line.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-sdk/src")
}

/// The stage modules in the order `lib.rs` declares them.
fn stages() -> Vec<String> {
    let lib = fs::read_to_string(src().join("lib.rs")).expect("lib.rs is readable");
    lib.lines()
        .filter_map(|line| line.trim().strip_prefix("pub mod "))
        .filter_map(|rest| rest.strip_suffix(';'))
        .map(str::to_owned)
        .collect()
}

/// Every `.rs` file below `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).expect("the source tree is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The source with comments and string/char literals blanked out (line breaks kept, so line
/// numbers still hold), and everything from the first `#[cfg(test)]` on dropped: unit tests may
/// use what they like.
fn code_of(source: &str) -> String {
    let source = match source.find("#[cfg(test)]") {
        Some(at) => &source[..at],
        None => source,
    };
    let bytes: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let next = bytes.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < bytes.len() && bytes[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < bytes.len() {
                if bytes[i] == '/' && bytes.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if bytes[i] == '*' && bytes.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if bytes[i] == '\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !prev_is_ident(&bytes, i)
        {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while bytes.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if bytes.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                match bytes.get(j) {
                    None => break,
                    Some('"') if (1..=hashes).all(|k| bytes.get(j + k) == Some(&'#')) => {
                        j += 1 + hashes;
                        break;
                    }
                    Some('\n') => out.push('\n'),
                    Some(_) => {}
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < bytes.len() && bytes[i] != '"' {
                if bytes[i] == '\\' {
                    i += 1;
                }
                if bytes.get(i) == Some(&'\n') {
                    out.push('\n');
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && bytes.get(i + 2) == Some(&'\'') {
            out.push_str("' '");
            i += 3;
        } else if c == '\'' && next == Some('\\') {
            let end = bytes[i + 2..].iter().position(|&b| b == '\'');
            i += end.map_or(2, |e| e + 3);
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn prev_is_ident(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// A path the code names, as its segments after the root keyword (`crate`, or `super`s
/// counted), with the line it is on.
struct Reference {
    line: usize,
    /// `None` for `crate::…`; the number of `super`s otherwise.
    supers: Option<usize>,
    segments: Vec<String>,
}

/// Every `crate::…` and `super::…` path in `code`, `use` trees expanded into their leaves.
fn references(code: &str) -> Vec<Reference> {
    let chars: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\n' {
            line += 1;
            i += 1;
            continue;
        }
        let starts_word = !prev_is_ident(&chars, i);
        let rest: String = chars[i..chars.len().min(i + 7)].iter().collect();
        let keyword = if starts_word && rest.starts_with("crate::") {
            Some("crate")
        } else if starts_word && rest.starts_with("super::") {
            Some("super")
        } else {
            None
        };
        let Some(keyword) = keyword else {
            i += 1;
            continue;
        };
        let mut supers = 0;
        let mut j = i;
        if keyword == "crate" {
            j += "crate::".len();
        } else {
            while chars[j..].starts_with(&['s', 'u', 'p', 'e', 'r', ':', ':']) {
                supers += 1;
                j += "super::".len();
            }
        }
        let (leaves, end, lines) = use_tree(&chars, j);
        for segments in leaves {
            found.push(Reference {
                line,
                supers: (keyword == "super").then_some(supers),
                segments,
            });
        }
        line += lines;
        i = end;
    }
    found
}

/// The modules a file declares (`mod name;`), whose paths it may name without `self::`.
fn child_modules(code: &str) -> Vec<String> {
    code.lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line
                .strip_prefix("pub(crate) mod ")
                .or_else(|| line.strip_prefix("pub mod "))
                .or_else(|| line.strip_prefix("mod "))?;
            rest.strip_suffix(';').map(str::to_owned)
        })
        .collect()
}

/// Every path in `code` that starts with one of `roots` (child modules named as such, or
/// through `self::`), as segments from that root.
fn references_to(code: &str, roots: &[String]) -> Vec<Reference> {
    let chars: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\n' {
            line += 1;
            i += 1;
            continue;
        }
        let mut j = i;
        if !prev_is_ident(&chars, i) && chars[i..].starts_with(&['s', 'e', 'l', 'f', ':', ':']) {
            j += "self::".len();
        }
        let after_path = chars[..i].iter().rev().find(|c| !c.is_whitespace()) == Some(&':');
        let root = (!prev_is_ident(&chars, i) && !after_path)
            .then(|| {
                roots.iter().find(|root| {
                    let word: Vec<char> = root.chars().chain("::".chars()).collect();
                    chars[j..].starts_with(&word)
                })
            })
            .flatten();
        let Some(_) = root else {
            i += 1;
            continue;
        };
        let (leaves, end, lines) = use_tree(&chars, j);
        for segments in leaves {
            found.push(Reference {
                line,
                supers: None,
                segments,
            });
        }
        line += lines;
        i = end;
    }
    found
}

/// Reads a path or `use` tree from `at`: its leaves (segment lists), where it ends, and how many
/// line breaks it spans.
fn use_tree(chars: &[char], at: usize) -> (Vec<Vec<String>>, usize, usize) {
    let mut prefix = Vec::new();
    let mut i = at;
    let mut lines = 0;
    loop {
        let start = i;
        while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
            i += 1;
        }
        let word: String = chars[start..i].iter().collect();
        if !word.is_empty() {
            prefix.push(word);
        }
        let separator = chars[i..].starts_with(&[':', ':']);
        if separator {
            i += 2;
        }
        if separator || (start == i && chars.get(i) == Some(&'{')) {
            if chars.get(i) == Some(&'{') {
                // A group: split at top-level commas.
                i += 1;
                let mut leaves = Vec::new();
                loop {
                    while i < chars.len() && (chars[i].is_whitespace() || chars[i] == ',') {
                        if chars[i] == '\n' {
                            lines += 1;
                        }
                        i += 1;
                    }
                    if i >= chars.len() || chars[i] == '}' {
                        i += 1;
                        break;
                    }
                    let (inner, end, inner_lines) = use_tree(chars, i);
                    lines += inner_lines;
                    for leaf in inner {
                        let mut full = prefix.clone();
                        full.extend(leaf);
                        leaves.push(full);
                    }
                    i = end;
                    // Skip an `as alias` and anything else up to the next separator.
                    while i < chars.len() && chars[i] != ',' && chars[i] != '}' {
                        if chars[i] == '\n' {
                            lines += 1;
                        }
                        i += 1;
                    }
                }
                return (leaves, i, lines);
            }
            continue;
        }
        return (vec![prefix], i, lines);
    }
}

/// A source file of a stage: its module path (`["store", "sqlite", "runs"]`) and its code.
struct File {
    path: PathBuf,
    module: Vec<String>,
    code: String,
}

fn files() -> Vec<File> {
    let root = src();
    rust_files(&root)
        .into_iter()
        .filter_map(|path| {
            let relative = path.strip_prefix(&root).ok()?.to_path_buf();
            let mut module: Vec<String> = relative
                .iter()
                .map(|part| part.to_string_lossy().trim_end_matches(".rs").to_owned())
                .collect();
            if module.last().is_some_and(|last| last == "mod") {
                module.pop();
            }
            // The crate root and the macros' private re-exports are not stages.
            if module.len() <= 1 && matches!(module[0].as_str(), "lib" | "private") {
                return None;
            }
            let code = code_of(&fs::read_to_string(&path).ok()?);
            Some(File {
                path: relative,
                module,
                code,
            })
        })
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
            "__private"
        ],
        "lib.rs declares the stages in dependency order, then the macros' private module"
    );
}

#[test]
fn every_stage_uses_only_the_stages_before_it() {
    let order: Vec<String> = stages().into_iter().filter(|s| s != "__private").collect();
    let rank = |stage: &str| order.iter().position(|s| s == stage);
    assert!(
        order.len() <= 12,
        "at most 12 top-level modules, found {order:?}"
    );
    let mut problems = Vec::new();
    for file in files() {
        let own = &file.module[0];
        let Some(own_rank) = rank(own) else {
            problems.push(format!(
                "{}: `{own}` is not a stage declared in lib.rs",
                file.path.display()
            ));
            continue;
        };
        for reference in references(&file.code) {
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
                    reference.segments.join("::")
                )),
                Some(_) => {}
                None => problems.push(format!(
                    "{place}: `crate::{}` goes through the crate root; name the stage",
                    reference.segments.join("::")
                )),
            }
        }
    }
    assert!(
        problems.is_empty(),
        "layout broken:\n{}",
        problems.join("\n")
    );
}

/// The top-level items a file defines (`struct`, `enum`, `trait`, `fn`, `type`, `const`,
/// `static`, `macro_rules!`), by name.
fn defined_items(code: &str) -> BTreeSet<String> {
    let mut items = BTreeSet::new();
    for line in code.lines() {
        if line.starts_with(char::is_whitespace) {
            continue;
        }
        let mut words = line
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!'))
            .filter(|w| !w.is_empty())
            .skip_while(|w| {
                matches!(
                    *w,
                    "pub" | "crate" | "super" | "in" | "async" | "unsafe" | "const" | "extern"
                ) && !line.trim_start().starts_with("const ")
            });
        let Some(kind) = words.next() else { continue };
        let kind = if kind == "const" && line.contains("const fn") {
            "fn"
        } else {
            kind
        };
        if matches!(
            kind,
            "struct" | "enum" | "trait" | "fn" | "type" | "const" | "static" | "union"
        ) {
            if let Some(name) = words.find(|w| *w != "fn") {
                items.insert(name.to_owned());
            }
        } else if kind == "macro_rules!" {
            if let Some(name) = words.next() {
                items.insert(name.to_owned());
            }
        }
    }
    items
}

#[test]
fn the_files_of_a_stage_import_each_other_without_a_cycle() {
    let files = files();
    let mut cycles = Vec::new();
    let mut stages_seen: Vec<&String> = files.iter().map(|f| &f.module[0]).collect();
    stages_seen.dedup();
    for stage in stages_seen {
        let members: Vec<&File> = files.iter().filter(|f| &f.module[0] == stage).collect();
        // Where each item name is defined; a name defined in two files of the stage is left
        // out rather than guessed.
        let mut defined: HashMap<String, Option<usize>> = HashMap::new();
        for (index, file) in members.iter().enumerate() {
            for item in defined_items(&file.code) {
                defined
                    .entry(item)
                    .and_modify(|at| *at = None)
                    .or_insert(Some(index));
            }
        }
        let module_index: HashMap<&[String], usize> = members
            .iter()
            .enumerate()
            .map(|(i, f)| (f.module.as_slice(), i))
            .collect();
        let mut edges: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        for (from, file) in members.iter().enumerate() {
            // A module's index re-exporting its files is its table of contents, not a
            // dependency.
            let code = if file.path.ends_with("mod.rs") {
                without_reexports(&file.code)
            } else {
                file.code.clone()
            };
            let children = child_modules(&file.code);
            let relative = references_to(&code, &children).into_iter().map(|mut r| {
                // A path from a child module of this file's: absolute under this module.
                r.supers = Some(0);
                r
            });
            for line_refs in references(&code).into_iter().chain(relative) {
                let absolute: Vec<String> = match line_refs.supers {
                    None => line_refs.segments.clone(),
                    Some(supers) if supers < file.module.len() => {
                        // The file's own module path without `supers` trailing parts; a
                        // `mod.rs` file is its module, so `super` leaves it.
                        let mut base = file.module.clone();
                        base.truncate(file.module.len() - supers);
                        base.extend(line_refs.segments.iter().cloned());
                        base
                    }
                    Some(_) => continue,
                };
                if absolute.first() != Some(stage) {
                    continue;
                }
                // The deepest module prefix that is a file, then the item named after it.
                let target = (1..=absolute.len()).rev().find_map(|len| {
                    let module = &absolute[..len];
                    let index = *module_index.get(module)?;
                    match absolute.get(len) {
                        Some(item) if members[index].module.len() == 1 || len > 1 => {
                            // An item re-exported by the stage's index resolves to the file
                            // that defines it.
                            defined.get(item).copied().flatten().or(Some(index))
                        }
                        _ => Some(index),
                    }
                });
                if let Some(to) = target {
                    if to != from {
                        edges.entry(from).or_default().insert(to);
                    }
                }
            }
        }
        for cycle in find_cycles(&edges) {
            let names: Vec<String> = cycle
                .iter()
                .map(|&i| members[i].path.display().to_string())
                .collect();
            cycles.push(names.join(" → "));
        }
    }
    assert!(
        cycles.is_empty(),
        "files importing each other in a cycle:\n{}",
        cycles.join("\n")
    );
}

/// `code` with its `pub use` statements blanked out (line breaks kept).
fn without_reexports(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("pub") {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let visibility_end = if from.starts_with("pub(") {
            from.find(')').map_or(3, |close| close + 1)
        } else {
            3
        };
        let after = from[visibility_end..].trim_start();
        let starts_word = !before.ends_with(|c: char| c.is_alphanumeric() || c == '_');
        if starts_word && after.starts_with("use ") {
            let end = from.find(';').map_or(from.len(), |semi| semi + 1);
            out.extend(from[..end].chars().filter(|&c| c == '\n'));
            rest = &from[end..];
        } else {
            out.push_str(&from[..3]);
            rest = &from[3..];
        }
    }
    out.push_str(rest);
    out
}

/// One cycle per strongly connected component with more than one file (Tarjan).
fn find_cycles(edges: &BTreeMap<usize, BTreeSet<usize>>) -> Vec<Vec<usize>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<usize, BTreeSet<usize>>,
        index: HashMap<usize, usize>,
        low: HashMap<usize, usize>,
        stack: Vec<usize>,
        on_stack: BTreeSet<usize>,
        next: usize,
        components: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index.insert(v, self.next);
            self.low.insert(v, self.next);
            self.next += 1;
            self.stack.push(v);
            self.on_stack.insert(v);
            let targets: Vec<usize> = self
                .edges
                .get(&v)
                .map(|t| t.iter().copied().collect())
                .unwrap_or_default();
            for w in targets {
                if !self.index.contains_key(&w) {
                    self.visit(w);
                    let low = self.low[&v].min(self.low[&w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(&w) {
                    let low = self.low[&v].min(self.index[&w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[&v] == self.index[&v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(&w);
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.reverse();
                    self.components.push(component);
                }
            }
        }
    }
    let mut tarjan = Tarjan {
        edges,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        components: Vec::new(),
    };
    let nodes: Vec<usize> = edges.keys().copied().collect();
    for v in nodes {
        if !tarjan.index.contains_key(&v) {
            tarjan.visit(v);
        }
    }
    tarjan.components
}

#[test]
fn the_checks_see_what_they_must() {
    // A later stage named from an earlier one, through a `use` group over lines.
    let code = code_of("use crate::{\n    define::Tool,\n    run::ToolLoop,\n};\n");
    let found: Vec<(usize, String)> = references(&code)
        .into_iter()
        .map(|r| (r.line, r.segments.join("::")))
        .collect();
    assert_eq!(
        found,
        [
            (1, "define::Tool".to_owned()),
            (1, "run::ToolLoop".to_owned())
        ]
    );
    // Comments, strings and unit tests do not count.
    let code = code_of(
        "/// See [`crate::run::ToolLoop`].\nlet s = \"crate::run\";\n#[cfg(test)]\nuse crate::run;\n",
    );
    assert!(references(&code).is_empty(), "{code}");
    // `super` paths are counted, with how far they climb.
    let refs = references(&code_of("use super::super::store::RunId;"));
    assert_eq!(refs[0].supers, Some(2));
    assert_eq!(refs[0].segments, ["store", "RunId"]);
    // A cycle of two files is found.
    let edges = BTreeMap::from([(0, BTreeSet::from([1])), (1, BTreeSet::from([0]))]);
    assert_eq!(find_cycles(&edges), [vec![0, 1]]);
    // An index's re-exports are not its dependencies; what else it uses is.
    let index = without_reexports(
        "pub use round::CallSummary;\npub(crate) use a::{\n  B,\n};\nuse round::RoundEnd;\n",
    );
    assert_eq!(index, "\n\n\n\nuse round::RoundEnd;\n");
    assert!(defined_items("pub(crate) struct RunState {\n").contains("RunState"));
    assert!(defined_items("pub const fn x() {}\n").contains("x"));
}

/// The names a user finds at the crate root: its public modules and what it re-exports (the
/// macros' hidden module aside).
fn root_names() -> Vec<String> {
    let lib = code_of(&fs::read_to_string(src().join("lib.rs")).expect("lib.rs is readable"));
    let mut names = Vec::new();
    let mut hidden = false;
    let mut rest = lib.as_str();
    while let Some(at) = rest.find("pub ") {
        let before = &rest[..at];
        if before.contains("#[doc(hidden)]") {
            hidden = true;
        }
        let from = &rest[at + "pub ".len()..];
        let end = from.find(';').unwrap_or(from.len());
        let statement = &from[..end];
        if let Some(module) = statement.strip_prefix("mod ") {
            if !hidden {
                names.push(module.trim().to_owned());
            }
        } else if let Some(tree) = statement.strip_prefix("use ") {
            let chars: Vec<char> = tree.chars().collect();
            for leaf in use_tree(&chars, 0).0 {
                if let Some(last) = leaf.last() {
                    names.push(last.clone());
                }
            }
        }
        hidden = false;
        rest = &from[end..];
    }
    names
}

#[test]
fn the_crate_root_is_small() {
    let names = root_names();
    assert!(
        names.len() <= 25,
        "{} names at the crate root, at most 25: {names:?}",
        names.len()
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

/// The names a newcomer learns from `program`: what it imports from `tool_sdk` or names by a
/// `tool_sdk::` path, the keys of its `#[tool(...)]` attributes, the names the macro generates
/// (`…Tool`, `…Args`), and the functions and methods it calls on them (`Type::function(`,
/// `.method(`). The standard library's names and macros are not counted.
fn names_learned(program: &str) -> std::collections::BTreeSet<String> {
    let code: String = program
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut names = std::collections::BTreeSet::new();
    for line in code.lines() {
        if let Some(tree) = line.trim().strip_prefix("use tool_sdk::") {
            let chars: Vec<char> = tree.trim_end_matches(';').chars().collect();
            for leaf in use_tree(&chars, 0).0 {
                names.extend(leaf.last().cloned());
            }
        }
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
