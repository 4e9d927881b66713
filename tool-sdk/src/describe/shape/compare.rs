//! Whether two schemas lower to the same one, without lowering them: how the check tells a
//! tuple of one type (an array of that type, where arrays have one item type) from a tuple of
//! several. Two schemas are the same when the keywords the dialect writes out are, in order.

use crate::describe::rules::{Others, Refs, Rules};
use crate::describe::shape::tree::{same, same_str, Definition, Keyword, Shape};
use crate::describe::shape::view::{Base, Value, View};

/// Deepest two schemas are compared (a tuple's elements).
const MAX_COMPARE_DEPTH: usize = 32;

/// Compares schemas as a dialect writes them.
pub(crate) struct Compare {
    pub(crate) rules: &'static Rules,
}

/// Whether the dialect of `rules` writes `keyword` out.
pub(crate) const fn keeps(rules: &Rules, keyword: Keyword) -> bool {
    match rules.keywords {
        None => true,
        Some(keywords) => {
            matches!(rules.others, Others::Kept) || contains(keywords, keyword.name())
        }
    }
}

impl Compare {
    /// Whether `a` and `b` lower to the same schema (`None`: too deep to tell).
    pub(crate) const fn same(
        &self,
        a: &'static Shape,
        b: &'static Shape,
        depth: usize,
    ) -> Option<bool> {
        let (Ok(a), Ok(b)) = (View::of(a), View::of(b)) else {
            return None;
        };
        self.same_views(a, b, depth)
    }

    /// Whether two schemas, read, lower to the same schema (`None`: too deep to tell).
    const fn same_views(&self, a: View, b: View, depth: usize) -> Option<bool> {
        if depth > MAX_COMPARE_DEPTH {
            return None;
        }
        match (a.base, b.base) {
            (Base::Bool(x), Base::Bool(y)) => return Some(x == y),
            (Base::Bool(_), _) | (_, Base::Bool(_)) => return Some(false),
            _ => {}
        }
        let (mut i, mut j) = (0, 0);
        loop {
            let next_a = self.next_written(&a, i);
            let next_b = self.next_written(&b, j);
            match (next_a, next_b) {
                (None, None) => return Some(true),
                (Some((ia, ka, va)), Some((jb, kb, vb))) => {
                    if !ka.is(kb) {
                        return Some(false);
                    }
                    match self.same_value(ka, va, vb, depth + 1) {
                        Some(true) => {}
                        other => return other,
                    }
                    i = ia + 1;
                    j = jb + 1;
                }
                _ => return Some(false),
            }
        }
    }

    /// The next keyword from the `i`th that the dialect writes out, with its place.
    const fn next_written(&self, view: &View, mut i: usize) -> Option<(usize, Keyword, Value)> {
        while let Some((keyword, value)) = view.entry(i) {
            if self.written(keyword, value) {
                return Some((i, keyword, value));
            }
            i += 1;
        }
        None
    }

    /// Whether the dialect writes `keyword` (with `value`) out in some form.
    const fn written(&self, keyword: Keyword, value: Value) -> bool {
        match keyword {
            Keyword::Defs => false,
            // Where every property is required, which ones were decides which become
            // nullable: compared as they are either way.
            Keyword::Required => true,
            // Said as a one-value `enum` where `const` is not.
            Keyword::Const if self.rules.const_as_enum => true,
            Keyword::Format => match (self.rules.formats, value) {
                (None, _) => true,
                (Some(formats), Value::Shape(Shape::Str(format))) => contains(formats, format),
                _ => false,
            },
            Keyword::Properties
            | Keyword::Items
            | Keyword::PrefixItems
            | Keyword::AdditionalProperties
            | Keyword::AnyOf
            | Keyword::OneOf
            | Keyword::AllOf
            | Keyword::Type
            | Keyword::Ref => true,
            _ => keeps(self.rules, keyword) || matches!(self.rules.others, Others::Described),
        }
    }

    /// Whether two values of `keyword` lower alike.
    const fn same_value(&self, keyword: Keyword, a: Value, b: Value, depth: usize) -> Option<bool> {
        match (a, b) {
            (Value::Shape(a), Value::Shape(b)) => match keyword {
                Keyword::Items | Keyword::AdditionalProperties => self.same(a, b, depth),
                Keyword::Properties => match (a, b) {
                    (Shape::Names(a), Shape::Names(b)) => {
                        if a.len() != b.len() {
                            return Some(false);
                        }
                        let mut i = 0;
                        while i < a.len() {
                            if !same_str(a[i].0, b[i].0) {
                                return Some(false);
                            }
                            match self.same(&a[i].1, &b[i].1, depth) {
                                Some(true) => {}
                                other => return other,
                            }
                            i += 1;
                        }
                        Some(true)
                    }
                    _ => Some(false),
                },
                Keyword::AnyOf | Keyword::OneOf | Keyword::AllOf | Keyword::PrefixItems => {
                    match (a, b) {
                        (Shape::List(a), Shape::List(b)) => {
                            if a.len() != b.len() {
                                return Some(false);
                            }
                            let mut i = 0;
                            while i < a.len() {
                                match self.same(&a[i], &b[i], depth) {
                                    Some(true) => {}
                                    other => return other,
                                }
                                i += 1;
                            }
                            Some(true)
                        }
                        _ => Some(false),
                    }
                }
                Keyword::Ref => match (a, b) {
                    (Shape::Ref(a), Shape::Ref(b)) if matches!(self.rules.refs, Refs::Inline) => {
                        self.same(&a.schema, &b.schema, depth)
                    }
                    (
                        Shape::Ref(Definition { name: a, .. })
                        | Shape::Recursive(a)
                        | Shape::Deep(a),
                        Shape::Ref(Definition { name: b, .. })
                        | Shape::Recursive(b)
                        | Shape::Deep(b),
                    ) => Some(same_str(a, b)),
                    _ => Some(false),
                },
                _ => Some(same(a, b)),
            },
            (Value::TypeOrNull(a), Value::TypeOrNull(b))
            | (Value::EnumOrNull(a), Value::EnumOrNull(b))
            | (Value::ConstOrNull(a), Value::ConstOrNull(b)) => Some(same(a, b)),
            (Value::NullBranches(a), Value::NullBranches(b)) => {
                self.same_views(View::object(a), View::object(b), depth)
            }
            _ => Some(false),
        }
    }
}

/// Whether `names` holds `name`.
const fn contains(names: &[&str], name: &str) -> bool {
    let mut i = 0;
    while i < names.len() {
        if same_str(names[i], name) {
            return true;
        }
        i += 1;
    }
    false
}
