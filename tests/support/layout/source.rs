//! A crate's source files, parsed, each with the module path its place in the tree gives it.

use std::fs;
use std::path::{Path, PathBuf};

use super::items::test_modules;

/// One source file: where it is, which module it is, and its syntax.
#[derive(Debug)]
pub struct SourceFile {
    /// The path below the crate's `src`, as failure messages name it.
    pub path: PathBuf,
    /// The module path (`["store", "sqlite", "runs"]`); empty for the crate root.
    pub module: Vec<String>,
    /// The parsed file.
    pub syntax: syn::File,
}

impl SourceFile {
    /// Parses `source` as the file at `path` (relative to the crate's `src`). Panics, naming the
    /// file and line, if it is not Rust: the layout cannot be checked on a file that does not
    /// parse, and the compiler would refuse it anyway.
    pub fn parse(path: impl Into<PathBuf>, source: &str) -> Self {
        let path = path.into();
        let syntax = syn::parse_file(source).unwrap_or_else(|error| {
            let line = error.span().start().line;
            panic!("{}:{line}: does not parse: {error}", path.display())
        });
        Self {
            module: module_of(&path),
            path,
            syntax,
        }
    }

    /// Whether the file is the index of its module (a `mod.rs`, or the crate root): the file
    /// that declares the module's files and may re-export what they define.
    pub fn is_index(&self) -> bool {
        self.path.ends_with("mod.rs") || self.module.is_empty()
    }
}

/// The module a file is, from its path: `a/b.rs` and `a/b/mod.rs` are `a::b`, and `lib.rs` or
/// `main.rs` is the crate root.
fn module_of(relative: &Path) -> Vec<String> {
    let mut module: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if module.last().is_some_and(|last| last == "mod") {
        module.pop();
    }
    if module == ["lib"] || module == ["main"] {
        module.clear();
    }
    module
}

/// Every file of the crate whose sources are in `src`, sorted by path, except the files only
/// unit tests build (a `mod` declared under `#[cfg(test)]`, and what is below it): unit tests
/// may use what they like.
pub fn read_crate(src: &Path) -> Vec<SourceFile> {
    let mut files: Vec<SourceFile> = rust_files(src)
        .into_iter()
        .map(|path| {
            let source = fs::read_to_string(&path).expect("a source file is readable");
            let relative = path.strip_prefix(src).expect("a file below src");
            SourceFile::parse(relative, &source)
        })
        .collect();
    let test_only: Vec<Vec<String>> = files
        .iter()
        .flat_map(|file| {
            test_modules(&file.syntax.items).into_iter().map(|name| {
                let mut module = file.module.clone();
                module.push(name);
                module
            })
        })
        .collect();
    files.retain(|file| !test_only.iter().any(|test| file.module.starts_with(test)));
    files
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
