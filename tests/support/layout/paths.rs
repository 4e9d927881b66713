//! The module paths a file names that start at the crate root (`crate::`), climb from the file's
//! module (`super::`), or start in it (`self::`, or a module the file declares): in `use` trees,
//! in code (expressions, types, patterns, attributes), and in the tokens of macro calls and
//! attribute arguments, which syn leaves unparsed but where a path is a use all the same.
//! Paths that start anywhere else (`std::`, `::serde::`, a type's `Self::`) are not the crate's
//! modules and are not collected.

use std::collections::BTreeSet;

use proc_macro2::{Delimiter, Ident, Spacing, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::visit::{self, Visit};
use syn::{ImplItem, Stmt, TraitItem, UseTree, Visibility};

use super::items::{attributes, child_modules, is_test_only};

/// A path a file names, resolved as far as the file alone allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The line of the path's last name.
    pub line: usize,
    /// `None` for `crate::…`; otherwise how many modules up from the file's module the path
    /// starts (0 for `self::…` and for a module the file declares).
    pub supers: Option<usize>,
    /// The path's names after that start (`crate::run::ToolLoop` gives `["run", "ToolLoop"]`).
    pub segments: Vec<String>,
    /// Whether the path is one a `use` with a visibility re-exports (`pub use`,
    /// `pub(crate) use`, …).
    pub reexport: bool,
}

impl Reference {
    /// The path's names after its start, as written (`run::ToolLoop`).
    pub fn path(&self) -> String {
        self.segments.join("::")
    }
}

/// Every path of the crate's modules that `file` names outside the items only unit tests build
/// (`#[cfg(test)]`), `use` trees expanded into their leaves, in the order they appear.
pub fn references(file: &syn::File) -> Vec<Reference> {
    let mut collector = Collector {
        scopes: vec![Scope {
            name: None,
            children: child_modules(&file.items),
        }],
        found: Vec::new(),
        reexport: false,
    };
    collector.visit_file(file);
    collector.found
}

/// The leaves of a `use` tree, each as the path from the tree's start (`a::{b, c::{self, d}}`
/// gives `a::b`, `a::c` and `a::c::d`; a glob `a::*` gives `a`): what the `use` reaches into.
pub fn use_leaves(tree: &UseTree) -> Vec<Vec<Ident>> {
    match tree {
        UseTree::Path(path) => use_leaves(&path.tree)
            .into_iter()
            .map(|leaf| std::iter::once(path.ident.clone()).chain(leaf).collect())
            .collect(),
        UseTree::Name(name) if name.ident == "self" => vec![Vec::new()],
        UseTree::Name(name) => vec![vec![name.ident.clone()]],
        UseTree::Rename(rename) => vec![vec![rename.ident.clone()]],
        UseTree::Glob(_) => vec![Vec::new()],
        UseTree::Group(group) => group.items.iter().flat_map(use_leaves).collect(),
    }
}

/// A module the visitor is in: the file itself (no name) or an inline `mod name { … }` in it,
/// with the modules declared there in files of their own.
struct Scope {
    name: Option<String>,
    children: BTreeSet<String>,
}

struct Collector {
    /// The file's scope first, then the inline modules the visitor is in, outermost first.
    scopes: Vec<Scope>,
    found: Vec<Reference>,
    /// Whether the `use` being read has a visibility, which makes its leaves re-exports.
    reexport: bool,
}

impl Collector {
    /// Whether `ident` may start a path of the crate's modules here.
    fn starts_module_path(&self, ident: &Ident) -> bool {
        let word = ident.unraw().to_string();
        matches!(word.as_str(), "crate" | "super" | "self")
            || self
                .scopes
                .last()
                .is_some_and(|scope| scope.children.contains(&word))
    }

    /// Records `path` (its names, the first one included) if it starts at one of the crate's
    /// modules and names something there.
    fn record(&mut self, path: &[Ident]) {
        let mut words: Vec<String> = path.iter().map(|i| i.unraw().to_string()).collect();
        // `a::{self}` is `a`.
        if words.len() > 1 && words.last().is_some_and(|w| w == "self") {
            words.pop();
        }
        let Some(first) = words.first() else { return };
        // The inline modules the path is written in: `self` and `super` start there.
        let inline: Vec<String> = self.scopes.iter().filter_map(|s| s.name.clone()).collect();
        let (start, supers) = match first.as_str() {
            "crate" => (1, None),
            "super" => {
                let climbs = words.iter().take_while(|w| *w == "super").count();
                (climbs, Some(climbs))
            }
            "self" => (1, Some(0)),
            _ if self.starts_module_path(&path[0]) => (0, Some(0)),
            _ => return,
        };
        // A bare `crate`, `super` or `self` names no module's item.
        if words.len() <= start {
            return;
        }
        let rest = words[start..].to_vec();
        let (supers, segments) = match supers {
            None => (None, rest),
            // Climbing out of inline modules stays in the file's module; past them, it leaves.
            Some(climbs) if climbs <= inline.len() => {
                let mut segments = inline[..inline.len() - climbs].to_vec();
                segments.extend(rest);
                (Some(0), segments)
            }
            Some(climbs) => (Some(climbs - inline.len()), rest),
        };
        let line = path.last().map_or(0, |ident| ident.span().start().line);
        self.found.push(Reference {
            line,
            supers,
            segments,
            reexport: self.reexport,
        });
    }

    /// Finds the module paths in tokens syn does not parse (a macro call's, an attribute's
    /// arguments): a start (`crate`, `super`, …) followed by `::`, not itself after a `::`, read
    /// on like a `use` tree, groups included.
    fn walk_tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                TokenTree::Group(group) => {
                    self.walk_tokens(group.stream());
                    i += 1;
                }
                TokenTree::Ident(ident)
                    if self.starts_module_path(ident)
                        && is_path_separator(&tokens, i + 1)
                        && !(i >= 2 && is_path_separator(&tokens, i - 2)) =>
                {
                    let (leaves, end) = token_tree_leaves(&tokens, i);
                    for leaf in leaves {
                        self.record(&leaf);
                    }
                    i = end;
                }
                _ => i += 1,
            }
        }
    }
}

/// Whether `tokens[at..]` starts with `::`.
fn is_path_separator(tokens: &[TokenTree], at: usize) -> bool {
    matches!(
        (tokens.get(at), tokens.get(at + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
    )
}

/// Reads a path or `use` tree from `tokens[at..]`: its leaves, and where it ends.
fn token_tree_leaves(tokens: &[TokenTree], at: usize) -> (Vec<Vec<Ident>>, usize) {
    let mut prefix = Vec::new();
    let mut i = at;
    loop {
        match tokens.get(i) {
            Some(TokenTree::Ident(ident)) => {
                prefix.push(ident.clone());
                i += 1;
            }
            Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Brace => {
                let inner: Vec<TokenTree> = group.stream().into_iter().collect();
                let leaves = inner
                    .split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
                    .filter(|part| !part.is_empty())
                    .flat_map(|part| token_tree_leaves(part, 0).0)
                    .map(|leaf| prefix.iter().cloned().chain(leaf).collect())
                    .collect();
                return (leaves, i + 1);
            }
            _ => return (vec![prefix], i),
        }
        if !is_path_separator(tokens, i) {
            return (vec![prefix], i);
        }
        i += 2;
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if is_test_only(attributes(item)) {
            return;
        }
        match item {
            syn::Item::Mod(module) if module.content.is_some() => {
                let items = module.content.as_ref().map_or(&[][..], |(_, items)| items);
                self.scopes.push(Scope {
                    name: Some(module.ident.to_string()),
                    children: child_modules(items),
                });
                visit::visit_item(self, item);
                self.scopes.pop();
            }
            _ => visit::visit_item(self, item),
        }
    }

    fn visit_impl_item(&mut self, item: &'ast ImplItem) {
        let attrs = match item {
            ImplItem::Const(i) => &i.attrs,
            ImplItem::Fn(i) => &i.attrs,
            ImplItem::Type(i) => &i.attrs,
            ImplItem::Macro(i) => &i.attrs,
            _ => return visit::visit_impl_item(self, item),
        };
        if !is_test_only(attrs) {
            visit::visit_impl_item(self, item);
        }
    }

    fn visit_trait_item(&mut self, item: &'ast TraitItem) {
        let attrs = match item {
            TraitItem::Const(i) => &i.attrs,
            TraitItem::Fn(i) => &i.attrs,
            TraitItem::Type(i) => &i.attrs,
            TraitItem::Macro(i) => &i.attrs,
            _ => return visit::visit_trait_item(self, item),
        };
        if !is_test_only(attrs) {
            visit::visit_trait_item(self, item);
        }
    }

    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        let test_only = match stmt {
            Stmt::Local(local) => is_test_only(&local.attrs),
            Stmt::Macro(mac) => is_test_only(&mac.attrs),
            _ => false,
        };
        if !test_only {
            visit::visit_stmt(self, stmt);
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.reexport = !matches!(item.vis, Visibility::Inherited);
        for leaf in use_leaves(&item.tree) {
            self.record(&leaf);
        }
        self.reexport = false;
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        // A path of one word in code is a local name (a variable may share a module's name).
        if path.leading_colon.is_none() && path.segments.len() > 1 {
            let idents: Vec<Ident> = path.segments.iter().map(|s| s.ident.clone()).collect();
            self.record(&idents);
        }
        // Generic arguments hold paths of their own.
        visit::visit_path(self, path);
    }

    // `pub(crate)`, `pub(super)`, `pub(in crate::a)` say who sees an item, not what it uses.
    fn visit_visibility(&mut self, _: &'ast Visibility) {}

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        self.walk_tokens(mac.tokens.clone());
    }

    fn visit_meta_list(&mut self, list: &'ast syn::MetaList) {
        self.visit_path(&list.path);
        self.walk_tokens(list.tokens.clone());
    }
}
