//! A schema of a [`Shape`] as the run-time walk would see it once written out: `Option<T>`'s
//! `null` allowed the way schemars allows it, a field's keywords over its type's, read keyword
//! by keyword without building anything (a `const fn` cannot allocate).

use crate::describe::shape::tree::{same_str, Keyword, Shape};

/// `{"type": "null"}`, the branch schemars adds for `null`.
const NULL_SCHEMA: &[(Keyword, Shape)] = &[(Keyword::Type, Shape::Str("null"))];

/// What a schema is, once read.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Base {
    /// `true` or `false`.
    Bool(bool),
    /// A schema object; `null_added` when `null` is added to its `type`, `const` or `enum`.
    Object {
        keywords: &'static [(Keyword, Shape)],
        null_added: bool,
    },
    /// `{"anyOf": [object, {"type": "null"}]}`: `null` allowed beside a reference or a union.
    NullUnion(&'static [(Keyword, Shape)]),
    /// A value that is no schema.
    NotSchema,
}

/// A schema, read: its base, and the keywords a use of it adds over its own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct View {
    pub(crate) base: Base,
    pub(crate) notes: &'static [(Keyword, Shape)],
}

/// A keyword's value, as the written schema would have it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Value {
    /// As it is.
    Shape(&'static Shape),
    /// `type`, with `"null"` added.
    TypeOrNull(&'static Shape),
    /// `enum` (from `enum`, or from `const` when the value is this one), with `null` added.
    EnumOrNull(&'static Shape),
    /// `enum` made from a `const` with `null` added: `[value, null]`.
    ConstOrNull(&'static Shape),
    /// The branches `[object, {"type": "null"}]`.
    NullBranches(&'static [(Keyword, Shape)]),
}

/// Why a shape cannot be read as the walk would read it written out: it is built in a way
/// schemars never builds one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Unreadable(pub(crate) &'static str);

/// A description, for a documented parameter.
const DOCUMENTED: &[(Keyword, Shape)] = &[(Keyword::Description, Shape::Str(""))];

const NEVER_BUILT: Unreadable = Unreadable("a shape schemars never builds");

impl View {
    /// The view of a schema with nothing over it.
    pub(crate) const fn object(keywords: &'static [(Keyword, Shape)]) -> View {
        View {
            base: Base::Object {
                keywords,
                null_added: false,
            },
            notes: &[],
        }
    }

    /// `shape`, read.
    pub(crate) const fn of(shape: &'static Shape) -> Result<View, Unreadable> {
        View::of_within(shape, 0)
    }

    /// `shape`, read, at most a few wrappers (`Option`s, descriptions) deep: a shape built to
    /// contain itself is no schema.
    const fn of_within(shape: &'static Shape, wrappers: usize) -> Result<View, Unreadable> {
        if wrappers > 8 {
            return Err(NEVER_BUILT);
        }
        match shape {
            Shape::Bool(value) => Ok(View {
                base: Base::Bool(*value),
                notes: &[],
            }),
            Shape::Schema(keywords) => Ok(View::object(keywords)),
            Shape::Annotated(inner, notes) => match View::of_within(inner, wrappers + 1) {
                Ok(view) => view.annotated(notes),
                Err(unreadable) => Err(unreadable),
            },
            Shape::Nullable(inner) => match View::of_within(inner, wrappers + 1) {
                Ok(View { base, notes: &[] }) => Ok(View {
                    base: nullable(base),
                    notes: &[],
                }),
                _ => Err(NEVER_BUILT),
            },
            Shape::Unchecked => Err(Unreadable(
                "an argument marked `#[arg(unchecked)]`, or a type without a description",
            )),
            _ => Ok(View {
                base: Base::NotSchema,
                notes: &[],
            }),
        }
    }

    /// The schema of `definition`, read, when it is an object schema (what the merge resolves
    /// a reference to).
    pub(crate) const fn of_definition(
        definition: Option<&'static crate::describe::Definition>,
    ) -> Option<View> {
        match definition {
            Some(definition) => match View::of(&definition.schema) {
                Ok(view) if view.is_object() => Some(view),
                _ => None,
            },
            None => None,
        }
    }

    /// A tool's parameter: its type's shape, with a description over it when `documented`.
    /// The words of a description decide no verdict (a parameter is no tuple's element): that
    /// there is one does (a `$ref` beside it is inlined; `true` becomes an object).
    pub(crate) const fn parameter(
        shape: &'static Shape,
        documented: bool,
    ) -> Result<View, Unreadable> {
        match View::of(shape) {
            Ok(view) if documented => view.annotated(DOCUMENTED),
            other => other,
        }
    }

    /// This schema with `notes` over it, as schemars adds a field's keywords.
    const fn annotated(self, notes: &'static [(Keyword, Shape)]) -> Result<View, Unreadable> {
        match self {
            // schemars makes `true` the empty schema `{}` to add keywords to it.
            View {
                base: Base::Bool(true),
                notes: &[],
            } => Ok(View::object(notes)),
            View {
                base: base @ (Base::Object { .. } | Base::NullUnion(_)),
                notes: &[],
            } => Ok(View { base, notes }),
            _ => Err(NEVER_BUILT),
        }
    }

    /// Whether it is a schema object (not `true` or `false`, nor another value).
    pub(crate) const fn is_object(&self) -> bool {
        matches!(self.base, Base::Object { .. } | Base::NullUnion(_))
    }

    /// How many keywords it has.
    pub(crate) const fn len(&self) -> usize {
        let mut count = 0;
        while self.entry(count).is_some() {
            count += 1;
        }
        count
    }

    /// Its `i`th keyword and value, in the order the written schema has them.
    pub(crate) const fn entry(&self, i: usize) -> Option<(Keyword, Value)> {
        let own: &'static [(Keyword, Shape)] = match self.base {
            Base::Object { keywords, .. } => keywords,
            Base::NullUnion(keywords) => {
                if i == 0 {
                    return Some((Keyword::AnyOf, Value::NullBranches(keywords)));
                }
                return self.added_note(i - 1, &[(Keyword::AnyOf, Shape::Null)]);
            }
            Base::Bool(_) | Base::NotSchema => return None,
        };
        if i >= own.len() {
            return self.added_note(i - own.len(), own);
        }
        let (keyword, ref value) = own[i];
        let value = match note(self.notes, keyword) {
            Some(over) => over,
            None => value,
        };
        let null_added = matches!(
            self.base,
            Base::Object {
                null_added: true,
                ..
            }
        );
        if !null_added {
            return Some((keyword, Value::Shape(value)));
        }
        match keyword {
            Keyword::Type => Some((keyword, Value::TypeOrNull(value))),
            Keyword::Enum => Some((keyword, Value::EnumOrNull(value))),
            // schemars makes `const` an `enum` with `null`, and drops a `const` of `null`: read
            // here as a keyword no rule reads.
            Keyword::Const => match value {
                Shape::Null => Some((Keyword::Other(""), Value::Shape(value))),
                _ => Some((Keyword::Enum, Value::ConstOrNull(value))),
            },
            _ => Some((keyword, Value::Shape(value))),
        }
    }

    /// The `i`th of the notes that are not among `own`.
    const fn added_note(&self, i: usize, own: &[(Keyword, Shape)]) -> Option<(Keyword, Value)> {
        let mut seen = 0;
        let mut j = 0;
        while j < self.notes.len() {
            let (keyword, ref value) = self.notes[j];
            if !has(own, keyword) {
                if seen == i {
                    return Some((keyword, Value::Shape(value)));
                }
                seen += 1;
            }
            j += 1;
        }
        None
    }

    /// The value of `keyword`.
    pub(crate) const fn get(&self, keyword: Keyword) -> Option<Value> {
        let mut i = 0;
        while let Some((found, value)) = self.entry(i) {
            if found.is(keyword) {
                return Some(value);
            }
            i += 1;
        }
        None
    }

    /// Whether it has `keyword`.
    pub(crate) const fn has(&self, keyword: Keyword) -> bool {
        self.get(keyword).is_some()
    }

    /// Its keywords other than `$ref`, as notes over the schema a reference leads to; `None`
    /// when they are not all notes (schemars puts nothing beside `$ref` but a field's notes).
    pub(crate) const fn beside_ref(&self) -> Option<&'static [(Keyword, Shape)]> {
        match self.base {
            Base::Object {
                keywords: [(Keyword::Ref, _)],
                null_added: false,
            } => Some(self.notes),
            _ => None,
        }
    }
}

/// `base` with `null` allowed, by schemars' rule for `Option<T>`.
const fn nullable(base: Base) -> Base {
    match base {
        Base::Bool(true) => Base::Bool(true),
        Base::Bool(false) => Base::Object {
            keywords: NULL_SCHEMA,
            null_added: false,
        },
        Base::Object {
            keywords,
            null_added,
        } => {
            if let [(Keyword::AnyOf, Shape::List(branches))] = keywords {
                if any_null(branches) {
                    return base;
                }
            }
            if has(keywords, Keyword::If)
                || has(keywords, Keyword::AllOf)
                || has(keywords, Keyword::AnyOf)
                || has(keywords, Keyword::OneOf)
                || has(keywords, Keyword::Ref)
            {
                return if null_added {
                    base
                } else {
                    Base::NullUnion(keywords)
                };
            }
            Base::Object {
                keywords,
                null_added: true,
            }
        }
        Base::NullUnion(_) | Base::NotSchema => base,
    }
}

/// Whether a branch of `branches` has the type `null`.
const fn any_null(branches: &[Shape]) -> bool {
    let mut i = 0;
    while i < branches.len() {
        if let Shape::Schema(keywords) = branches[i] {
            match note(keywords, Keyword::Type) {
                Some(Shape::Str(kind)) if same_str(kind, "null") => return true,
                Some(Shape::List(kinds)) => {
                    let mut k = 0;
                    while k < kinds.len() {
                        if let Shape::Str(kind) = kinds[k] {
                            if same_str(kind, "null") {
                                return true;
                            }
                        }
                        k += 1;
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    false
}

/// Whether `keywords` has `keyword`.
const fn has(keywords: &[(Keyword, Shape)], keyword: Keyword) -> bool {
    note(keywords, keyword).is_some()
}

/// The value of `keyword` among `keywords`.
const fn note(keywords: &[(Keyword, Shape)], keyword: Keyword) -> Option<&Shape> {
    let mut i = 0;
    while i < keywords.len() {
        if keywords[i].0.is(keyword) {
            return Some(&keywords[i].1);
        }
        i += 1;
    }
    None
}

/// The branches of a union's value: how many, and each read.
pub(crate) const fn branches(value: Value) -> Option<usize> {
    match value {
        Value::Shape(Shape::List(items)) => Some(items.len()),
        Value::NullBranches(_) => Some(2),
        _ => None,
    }
}

/// The `i`th branch of a union's value.
pub(crate) const fn branch(value: Value, i: usize) -> Result<View, Unreadable> {
    match value {
        Value::Shape(Shape::List(items)) => View::of(&items[i]),
        Value::NullBranches(keywords) => {
            Ok(View::object(if i == 0 { keywords } else { NULL_SCHEMA }))
        }
        _ => Err(NEVER_BUILT),
    }
}
