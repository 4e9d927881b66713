//! What a file declares: the items it defines, the modules it declares, the names it makes
//! public, and which of its parts only unit tests build.

use std::collections::BTreeSet;

use syn::punctuated::Punctuated;
use syn::{Attribute, Item, Meta, Token, UseTree, Visibility};

/// Whether `attrs` hold a `#[cfg(...)]` that only a test build meets (`test`, or `all(…)` with
/// `test` among its conditions): such code is unit tests' or their helpers', which may use what
/// they like.
pub fn is_test_only(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg"))
        .filter_map(|attr| attr.parse_args::<Meta>().ok())
        .any(|condition| requires_test(&condition))
}

fn requires_test(condition: &Meta) -> bool {
    match condition {
        Meta::Path(path) => path.is_ident("test"),
        Meta::List(list) if list.path.is_ident("all") => list
            .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            .is_ok_and(|all| all.iter().any(requires_test)),
        _ => false,
    }
}

/// The attributes of an item, whatever its kind.
pub fn attributes(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// The items of `items` that every build has (those under `#[cfg(test)]` left out).
fn built(items: &[Item]) -> impl Iterator<Item = &Item> {
    items.iter().filter(|item| !is_test_only(attributes(item)))
}

/// The modules declared in files of their own (`mod name;`), which paths may name without
/// `self::`; those only unit tests build are left out.
pub fn child_modules(items: &[Item]) -> BTreeSet<String> {
    built(items)
        .filter_map(|item| match item {
            Item::Mod(module) if module.content.is_none() => Some(module.ident.to_string()),
            _ => None,
        })
        .collect()
}

/// The modules declared under `#[cfg(test)]` in files of their own: files only unit tests
/// build.
pub fn test_modules(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .filter_map(|item| match item {
            Item::Mod(module) if module.content.is_none() && is_test_only(&module.attrs) => {
                Some(module.ident.to_string())
            }
            _ => None,
        })
        .collect()
}

/// The items `items` define (`struct`, `enum`, `union`, `trait`, `fn`, `type`, `const`,
/// `static`, `macro_rules!`), by name: the names a path may reach the defining file by.
pub fn defined_items(items: &[Item]) -> BTreeSet<String> {
    built(items)
        .filter_map(|item| match item {
            Item::Struct(i) => Some(&i.ident),
            Item::Enum(i) => Some(&i.ident),
            Item::Union(i) => Some(&i.ident),
            Item::Trait(i) => Some(&i.ident),
            Item::Fn(i) => Some(&i.sig.ident),
            Item::Type(i) => Some(&i.ident),
            Item::Const(i) => Some(&i.ident),
            Item::Static(i) => Some(&i.ident),
            Item::Macro(i) if i.mac.path.is_ident("macro_rules") => i.ident.as_ref(),
            _ => None,
        })
        .map(ToString::to_string)
        .collect()
}

/// The names a user finds at a crate root: its public modules and what it re-exports, under the
/// names it re-exports them as. A module under `#[doc(hidden)]` (the macros' own) is not one a
/// user is shown; a glob counts once, as `path::*`, since its names cannot be read here.
pub fn public_names(root: &syn::File) -> Vec<String> {
    let mut names = Vec::new();
    for item in built(&root.items) {
        match item {
            Item::Mod(module) if is_public(&module.vis) && !is_hidden(&module.attrs) => {
                names.push(module.ident.to_string());
            }
            Item::Use(use_item) if is_public(&use_item.vis) => {
                names.extend(names_brought(&use_item.tree, &mut Vec::new()));
            }
            _ => {}
        }
    }
    names
}

fn is_public(vis: &Visibility) -> bool {
    matches!(vis, Visibility::Public(_))
}

fn is_hidden(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("doc")
            && attr
                .parse_args::<syn::Ident>()
                .is_ok_and(|word| word == "hidden")
    })
}

/// The names a `use` tree brings into scope (`prefix` holds the path down to `tree`).
fn names_brought(tree: &UseTree, prefix: &mut Vec<String>) -> Vec<String> {
    match tree {
        UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            let names = names_brought(&path.tree, prefix);
            prefix.pop();
            names
        }
        UseTree::Name(name) if name.ident == "self" => prefix.last().cloned().into_iter().collect(),
        UseTree::Name(name) => vec![name.ident.to_string()],
        UseTree::Rename(rename) => vec![rename.rename.to_string()],
        UseTree::Glob(_) => vec![format!("{}::*", prefix.join("::"))],
        UseTree::Group(group) => group
            .items
            .iter()
            .flat_map(|tree| names_brought(tree, prefix))
            .collect(),
    }
}
