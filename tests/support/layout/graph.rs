//! Which file of a set imports which, and the cycles among them.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::items::defined_items;
use super::paths::references;
use super::source::SourceFile;

/// The files of `members` each one names (by index into `members`), itself left out.
///
/// A path is made absolute from the file's module, then resolved to the deepest module prefix
/// that is a member, then to the member that defines the item named after that prefix (an item
/// a module re-exports resolves to the file that defines it; a name defined in two members is
/// left out rather than guessed). Paths to modules outside `members` are no edges. A module
/// index's re-exports are its table of contents, not what it depends on, so they are skipped.
pub fn import_edges(members: &[&SourceFile]) -> BTreeMap<usize, BTreeSet<usize>> {
    let mut defined: HashMap<String, Option<usize>> = HashMap::new();
    for (index, file) in members.iter().enumerate() {
        for item in defined_items(&file.syntax.items) {
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
        for reference in references(&file.syntax) {
            if reference.reexport && file.is_index() {
                continue;
            }
            let absolute: Vec<String> = match reference.supers {
                None => reference.segments.clone(),
                Some(supers) if supers <= file.module.len() => {
                    // The file's own module path without `supers` trailing parts; a `mod.rs`
                    // file is its module, so `super` leaves it.
                    let mut base = file.module.clone();
                    base.truncate(file.module.len() - supers);
                    base.extend(reference.segments.iter().cloned());
                    base
                }
                Some(_) => continue,
            };
            let target = (0..=absolute.len()).rev().find_map(|len| {
                let index = *module_index.get(&absolute[..len])?;
                match absolute.get(len) {
                    Some(item) => defined.get(item).copied().flatten().or(Some(index)),
                    None => Some(index),
                }
            });
            if let Some(to) = target.filter(|&to| to != from) {
                edges.entry(from).or_default().insert(to);
            }
        }
    }
    edges
}

/// One cycle per strongly connected component with more than one file (Tarjan).
pub fn find_cycles(edges: &BTreeMap<usize, BTreeSet<usize>>) -> Vec<Vec<usize>> {
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

/// The cycles among `members`, each as its files' paths joined by arrows.
pub fn cycles_among(members: &[&SourceFile]) -> Vec<String> {
    find_cycles(&import_edges(members))
        .into_iter()
        .map(|cycle| {
            let names: Vec<String> = cycle
                .iter()
                .map(|&i| members[i].path.display().to_string())
                .collect();
            names.join(" → ")
        })
        .collect()
}
