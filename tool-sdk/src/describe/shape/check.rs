//! The run-time walk's refusals, as a `const fn` over a [`Shape`]: whether a schema lowers to a
//! dialect, decided when the crate is compiled.
//!
//! It follows [`walk`](crate::describe::walk) step for step, reading the same [`Rules`], and
//! refuses with the same [`Rule`] at the same pointer; where it would have to build what the
//! walk builds (objects merged from flattened enums, `allOf` of one schema), it leaves the
//! verdict to registration ([`Verdict::Unchecked`]).

use crate::describe::rule::{Piece, Reference, Rule};
use crate::describe::rules::{Maps, Refs, Rules, Tuples, TypeUnions};
use crate::describe::shape::compare::{keeps, Compare};
use crate::describe::shape::text::Pointer;
use crate::describe::shape::tree::{same, same_str, Definition, Keyword, Shape};
use crate::describe::shape::view::{branch, branches, Base, Unreadable, Value, View};
use crate::describe::Fault;

/// Most schemas one check visits, as the walk allows.
const MAX_VISITS: usize = 100_000;
/// What fills the table of definitions where none is yet.
const NO_DEFINITION: Definition = Definition {
    name: "",
    schema: Shape::Null,
};

/// Most schemas the walk is inside at once.
const MAX_NESTING: usize = 256;
/// Most references open at once (a type inside a type inside ...).
const MAX_OPEN: usize = 32;
/// Most definitions one check keeps.
const MAX_DEFINED: usize = 128;

/// The verdict of a check.
// The pointer is held by value: a `const fn` cannot box it.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy)]
pub(crate) enum Verdict {
    /// The schema lowers.
    Fits,
    /// It breaks `rule` at `pointer`, inside the root's property of this place (`None`:
    /// outside every property).
    Refused {
        kind: Fault,
        pointer: Pointer,
        rule: Rule<'static>,
        property: Option<usize>,
    },
    /// The check cannot tell; registration will. Why, in a few words.
    Unchecked(&'static str),
}

/// Why the walk of a schema stopped: a refusal at the current pointer, or no verdict.
#[derive(Debug, Clone, Copy)]
enum Stop {
    Refused(Fault, Rule<'static>),
    Unchecked(&'static str),
}

type Step<T = ()> = Result<T, Stop>;

/// `?` for a `const fn`.
macro_rules! step {
    ($result:expr) => {
        match $result {
            Ok(value) => value,
            Err(stop) => return Err(stop),
        }
    };
}

const fn unsupported<T>(rule: Rule<'static>) -> Step<T> {
    Err(Stop::Refused(Fault::Unsupported, rule))
}

const fn too_large<T>(rule: Rule<'static>) -> Step<T> {
    Err(Stop::Refused(Fault::TooLarge, rule))
}

const fn invalid<T>(rule: Rule<'static>) -> Step<T> {
    Err(Stop::Refused(Fault::Invalid, rule))
}

const fn read(view: Result<View, Unreadable>) -> Step<View> {
    match view {
        Ok(view) => Ok(view),
        Err(Unreadable(why)) => Err(Stop::Unchecked(why)),
    }
}

/// Checks `root` (a tool's parameters, an object schema) against `rules`.
pub(crate) const fn check(rules: &'static Rules, root: &'static Shape) -> Verdict {
    let mut check = Check::new(rules);
    let view = match View::of(root) {
        Ok(view) => view,
        Err(Unreadable(why)) => return Verdict::Unchecked(why),
    };
    let walked = check.node(view, 0, true);
    check.verdict(walked)
}

/// A tool's parameter as the tool macros describe it: its name, its type's shape, and whether
/// its schema has a keyword of the parameter's own beside its type's (a description, a
/// default).
pub type Parameter = (&'static str, Shape, bool);

/// Checks a tool's parameters against `rules`, as [`check`] checks the object schema of them
/// (`type: object`, `additionalProperties: false`, `properties`) the tool's arguments struct
/// has, whose other keywords decide no verdict.
pub(crate) const fn check_parameters(
    rules: &'static Rules,
    parameters: &'static [Parameter],
) -> Verdict {
    let mut check = Check::new(rules);
    let walked = check.parameters(parameters);
    check.verdict(walked)
}

/// A reference being followed: its definition, and whether it is being lowered as a
/// definition of `$defs` (or inlined).
type Open = Option<(&'static Definition, bool)>;

struct Check {
    rules: &'static Rules,
    /// Where the walk is; at a refusal, where it refused.
    pointer: Pointer,
    open: [Open; MAX_OPEN],
    open_len: usize,
    /// The definitions lowered, with how many levels each nests below its use.
    defined: [(&'static Definition, usize); MAX_DEFINED],
    defined_len: usize,
    deepest: usize,
    properties: usize,
    enum_values: usize,
    visits: usize,
    /// The root's property being walked, by place: where a refusal inside it is reported.
    property: Option<usize>,
    /// How many schemas the walk is inside.
    nesting: usize,
    /// Why a property of the root was left to registration, when one was: the others are
    /// still checked, and the verdict is this when none of them is refused.
    left: Option<&'static str>,
}

impl Check {
    const fn new(rules: &'static Rules) -> Check {
        Check {
            rules,
            pointer: Pointer::ROOT,
            open: [None; MAX_OPEN],
            open_len: 0,
            defined: [(&NO_DEFINITION, 0); MAX_DEFINED],
            defined_len: 0,
            deepest: 0,
            properties: 0,
            enum_values: 0,
            visits: 0,
            property: None,
            nesting: 0,
            left: None,
        }
    }

    /// The verdict of a walk that ended with `walked`.
    const fn verdict(self, walked: Step) -> Verdict {
        match walked {
            Ok(()) => match self.left {
                None => Verdict::Fits,
                Some(why) => Verdict::Unchecked(why),
            },
            Err(Stop::Refused(kind, rule)) => Verdict::Refused {
                kind,
                pointer: self.pointer,
                rule,
                property: self.property,
            },
            Err(Stop::Unchecked(why)) => Verdict::Unchecked(why),
        }
    }

    /// The root of a tool's parameters, walked as [`node`](Self::node) walks its object
    /// schema: the root counted once, then the properties.
    const fn parameters(&mut self, parameters: &'static [Parameter]) -> Step {
        self.visits += 1;
        self.enter(Piece::Text("properties"));
        step!(self.count_properties(parameters.len()));
        let mut p = 0;
        while p < parameters.len() {
            let (name, ref shape, noted) = parameters[p];
            self.property = Some(p);
            self.enter(Piece::Text(name));
            step!(self.root_property(View::parameter(shape, noted), 1));
            self.leave();
            p += 1;
        }
        self.property = None;
        self.leave();
        Ok(())
    }

    /// A property of the root (a tool's parameter): one the check cannot follow is left to
    /// registration, and the walk goes on with the next, so that the others are still checked.
    const fn root_property(&mut self, view: Result<View, Unreadable>, depth: usize) -> Step {
        let (pointer, open) = (self.pointer.len(), self.open_len);
        let walked = match view {
            Ok(view) => self.node(view, depth, false),
            Err(Unreadable(why)) => Err(Stop::Unchecked(why)),
        };
        match walked {
            Err(Stop::Unchecked(why)) => {
                self.pointer.truncate(pointer);
                self.open_len = open;
                if self.left.is_none() {
                    self.left = Some(why);
                }
                Ok(())
            }
            walked => walked,
        }
    }

    /// Steps into `token` (a refusal keeps the pointer where it was made, so the step back out
    /// is only taken after a step that went well).
    const fn enter(&mut self, token: Piece<'static>) {
        self.pointer.push(token);
    }

    const fn leave(&mut self) {
        self.pointer.pop();
    }

    const fn node(&mut self, view: View, depth: usize, is_root: bool) -> Step {
        self.nesting += 1;
        let walked = self.node_within(view, depth, is_root);
        self.nesting -= 1;
        walked
    }

    /// [`node`](Self::node), bounded: a shape built to contain itself (a `static` of the
    /// caller's) would otherwise walk until the stack ends.
    const fn node_within(&mut self, view: View, depth: usize, is_root: bool) -> Step {
        if self.nesting > MAX_NESTING {
            return Err(Stop::Unchecked(
                "schemas nested deeper than the check follows",
            ));
        }
        if let Some(max) = self.rules.limits.max_depth {
            if depth > max {
                return too_large(Rule::Deeper { max });
            }
        }
        if depth > self.deepest {
            self.deepest = depth;
        }
        self.visits += 1;
        if self.visits > MAX_VISITS {
            return too_large(Rule::Expands { max: MAX_VISITS });
        }
        if !view.is_object() {
            if self.rules.canonical {
                return Ok(());
            }
            if matches!(view.base, Base::Bool(true)) && !self.rules.type_required {
                return Ok(());
            }
            return unsupported(Rule::BooleanSchema);
        }
        if let Some(reference) = view.get(Keyword::Ref) {
            return self.reference(view, reference, depth);
        }
        if let Some(Value::Shape(Shape::List([_]))) = view.get(Keyword::AllOf) {
            return Err(Stop::Unchecked("`allOf` of one schema"));
        }
        if !self.rules.canonical && self.composes(&view) && self.merges(view, 0) {
            return Err(Stop::Unchecked(
                "objects composed of flattened enums or `allOf`",
            ));
        }
        self.object(view, depth, is_root)
    }

    /// Whether the walk would merge the object's parts into one union of whole objects.
    const fn composes(&self, view: &View) -> bool {
        let several = matches!(
            view.get(Keyword::AllOf),
            Some(Value::Shape(Shape::List([_, _, ..])))
        );
        let beside =
            view.has(Keyword::Properties) && (view.has(Keyword::AnyOf) || view.has(Keyword::OneOf));
        several || (self.rules.closed_objects && beside)
    }

    /// Whether the walk's merge makes whole objects of `view` (it does not when a part is no
    /// object schema: the schema is then walked as it is).
    const fn merges(&self, view: View, depth: usize) -> bool {
        if depth > 16 {
            return false;
        }
        if let Some(reference) = view.get(Keyword::Ref) {
            let target = match reference {
                Value::Shape(Shape::Ref(definition)) => Some(*definition),
                Value::Shape(Shape::Recursive(name) | Shape::Deep(name)) => self.opened(name),
                _ => None,
            };
            return match (target, View::of_definition(target)) {
                (Some(_), Some(target)) if view.len() == 1 => self.merges(target, depth + 1),
                _ => false,
            };
        }
        let is_object = matches!(view.get(Keyword::Type), Some(Value::Shape(Shape::Str(kind))) if same_str(kind, "object"))
            || view.has(Keyword::Properties);
        let union = match view.get(Keyword::AnyOf) {
            Some(branches) => Some(branches),
            None => view.get(Keyword::OneOf),
        };
        let all_of = view.get(Keyword::AllOf);
        if !is_object && union.is_none() && all_of.is_none() {
            return false;
        }
        if let Some(union) = union {
            if !self.parts_merge(union, depth) {
                return false;
            }
        }
        if let Some(all_of) = all_of {
            if !self.parts_merge(all_of, depth) {
                return false;
            }
        }
        true
    }

    /// Whether every part of a union or `allOf` is an object schema the merge makes whole
    /// objects of.
    const fn parts_merge(&self, parts: Value, depth: usize) -> bool {
        let Some(count) = branches(parts) else {
            return false;
        };
        let mut i = 0;
        while i < count {
            match branch(parts, i) {
                Ok(part) if part.is_object() => {
                    if !self.merges(part, depth + 1) {
                        return false;
                    }
                }
                _ => return false,
            }
            i += 1;
        }
        true
    }

    const fn object(&mut self, view: View, depth: usize, is_root: bool) -> Step {
        let rules = self.rules;
        let mut unions = 0;
        let mut i = 0;
        while let Some((keyword, value)) = view.entry(i) {
            i += 1;
            self.enter(Piece::Text(keyword.name()));
            match keyword {
                Keyword::Properties => {
                    let Value::Shape(Shape::Names(properties)) = value else {
                        return invalid(Rule::PropertiesNotObject);
                    };
                    step!(self.count_properties(properties.len()));
                    let mut p = 0;
                    while p < properties.len() {
                        let (name, ref property) = properties[p];
                        if is_root {
                            self.property = Some(p);
                        }
                        self.enter(Piece::Text(name));
                        if is_root {
                            step!(self.root_property(View::of(property), depth + 1));
                        } else {
                            step!(self.node(step!(read(View::of(property))), depth + 1, false));
                        }
                        self.leave();
                        p += 1;
                    }
                    if is_root {
                        self.property = None;
                    }
                }
                Keyword::Items => match value {
                    Value::Shape(shape) => {
                        let items = step!(read(View::of(shape)));
                        if items.is_object() {
                            step!(self.node(items, depth + 1, false));
                        } else if matches!(items.base, Base::Bool(false))
                            && view.has(Keyword::PrefixItems)
                        {
                        } else if !rules.canonical {
                            return unsupported(Rule::ItemsOfAnyType);
                        }
                    }
                    _ => return Err(Stop::Unchecked("`items` made nullable")),
                },
                Keyword::PrefixItems => {
                    self.leave();
                    step!(self.tuple(value, depth));
                    self.enter(Piece::Text(keyword.name()));
                }
                Keyword::AdditionalProperties => {
                    let Value::Shape(shape) = value else {
                        return Err(Stop::Unchecked("`additionalProperties` made nullable"));
                    };
                    if !matches!(shape, Shape::Bool(false)) {
                        if let Maps::Refused { because } = rules.maps {
                            self.leave();
                            return unsupported(Rule::Map { because });
                        }
                        let open = step!(read(View::of(shape)));
                        if open.is_object() {
                            step!(self.node(open, depth + 1, false));
                        }
                    }
                }
                // Keys that must match a pattern (integer keys), as the walk refuses them.
                Keyword::PatternProperties
                    if !self.keeps(Keyword::PatternProperties)
                        && matches!(value, Value::Shape(Shape::Names([_, ..]))) =>
                {
                    self.leave();
                    return unsupported(match rules.maps {
                        Maps::Refused { because } => Rule::Map { because },
                        Maps::Kept => Rule::KeyPattern,
                    });
                }
                Keyword::AnyOf | Keyword::OneOf => {
                    let Some(count) = branches(value) else {
                        return invalid(Rule::NotArray {
                            keyword: keyword.name(),
                        });
                    };
                    if is_root && !rules.canonical {
                        self.pointer.truncate(0);
                        return unsupported(Rule::RootUnion);
                    }
                    let mut b = 0;
                    while b < count {
                        self.enter(Piece::Number(b));
                        step!(self.node(step!(read(branch(value, b))), depth, false));
                        self.leave();
                        b += 1;
                    }
                    let counts_as_any_of = rules.one_of_as_any_of || keyword.is(Keyword::AnyOf);
                    // Two keywords written as one name: `anyOf` beside `oneOf`.
                    let slot = if counts_as_any_of { 1 } else { 2 };
                    if unions & slot != 0 {
                        return unsupported(Rule::AnyOfBesideOneOf);
                    }
                    unions |= slot;
                }
                Keyword::AllOf => {
                    let Some(count) = branches(value) else {
                        return invalid(Rule::NotArray { keyword: "allOf" });
                    };
                    if !rules.all_of {
                        return unsupported(Rule::AllOf);
                    }
                    let mut b = 0;
                    while b < count {
                        self.enter(Piece::Number(b));
                        step!(self.all_of_schema(step!(read(branch(value, b))), depth));
                        self.leave();
                        b += 1;
                    }
                }
                Keyword::Defs if !rules.canonical => {}
                Keyword::Type => step!(self.kind(value)),
                Keyword::Const if rules.const_as_enum => {
                    if rules.string_enums && !matches!(value, Value::Shape(Shape::Str(_))) {
                        return unsupported(Rule::StringEnumsOnly);
                    }
                    step!(self.count_enum_values(1));
                }
                Keyword::Enum => {
                    let (count, strings) = match value {
                        Value::Shape(Shape::List(values)) => (values.len(), all_strings(values)),
                        Value::EnumOrNull(Shape::List(values)) => {
                            let with_null = if has_null(values) { 0 } else { 1 };
                            (
                                values.len() + with_null,
                                all_strings(values) && with_null == 0,
                            )
                        }
                        Value::ConstOrNull(_) => (2, false),
                        _ => return invalid(Rule::NotArray { keyword: "enum" }),
                    };
                    if rules.string_enums && !strings {
                        return unsupported(Rule::StringEnumsOnly);
                    }
                    step!(self.count_enum_values(count));
                }
                _ => {}
            }
            self.leave();
        }
        self.finish(&view)
    }

    /// What the walk checks once an object's keywords are lowered: it says a type.
    const fn finish(&self, view: &View) -> Step {
        if !self.rules.type_required {
            return Ok(());
        }
        let typed = view.has(Keyword::Type)
            || view.has(Keyword::AnyOf)
            || view.has(Keyword::OneOf)
            || view.has(Keyword::AllOf)
            || (view.has(Keyword::Enum) && self.keeps(Keyword::Enum))
            || (view.has(Keyword::Const)
                && (self.rules.const_as_enum || self.keeps(Keyword::Const)));
        if typed {
            Ok(())
        } else {
            unsupported(Rule::AnyType)
        }
    }

    /// Whether the dialect writes `keyword` out.
    const fn keeps(&self, keyword: Keyword) -> bool {
        keeps(self.rules, keyword)
    }

    /// `type`, as the dialect says a union of types.
    const fn kind(&self, value: Value) -> Step {
        if !matches!(self.rules.type_unions, TypeUnions::Nullable) {
            return Ok(());
        }
        // `null` added to a union of types adds no type.
        let kinds: &[Shape] = match value {
            Value::Shape(Shape::List(kinds)) | Value::TypeOrNull(Shape::List(kinds)) => kinds,
            _ => return Ok(()),
        };
        let mut typed = 0;
        let mut i = 0;
        while i < kinds.len() {
            if !matches!(kinds[i], Shape::Str(kind) if same_str(kind, "null")) {
                typed += 1;
            }
            i += 1;
        }
        if typed == 1 {
            Ok(())
        } else {
            unsupported(Rule::UnionOfTypes)
        }
    }

    /// A tuple: its elements, and one type where arrays have one item type. The pointer is the
    /// tuple's own.
    const fn tuple(&mut self, value: Value, depth: usize) -> Step {
        let Value::Shape(Shape::List(elements)) = value else {
            self.enter(Piece::Text("prefixItems"));
            return invalid(Rule::NotArray {
                keyword: "prefixItems",
            });
        };
        self.enter(Piece::Text("prefixItems"));
        let mut e = 0;
        while e < elements.len() {
            self.enter(Piece::Number(e));
            step!(self.node(step!(read(View::of(&elements[e]))), depth + 1, false));
            self.leave();
            e += 1;
        }
        self.leave();
        if matches!(self.rules.tuples, Tuples::Kept) {
            return Ok(());
        }
        let [first, rest @ ..] = elements else {
            return unsupported(Rule::TupleOfTypes);
        };
        let mut r = 0;
        while r < rest.len() {
            match (Compare { rules: self.rules }).same(first, &rest[r], 0) {
                Some(true) => {}
                Some(false) => return unsupported(Rule::TupleOfTypes),
                None => return Err(Stop::Unchecked("a tuple of types too deep to compare")),
            }
            r += 1;
        }
        Ok(())
    }

    /// A schema with a `$ref`, as the walk follows it.
    const fn reference(&mut self, view: View, reference: Value, depth: usize) -> Step {
        let definition = match reference {
            Value::Shape(Shape::Ref(definition)) => *definition,
            Value::Shape(Shape::Recursive(name)) => match self.opened(name) {
                Some(definition) => definition,
                None => {
                    return invalid(Rule::Unresolved {
                        reference: Reference::Definition(name),
                    })
                }
            },
            // Past the depth descriptions unfold: a type holding itself through others is
            // open above; any other is further than the check follows.
            Value::Shape(Shape::Deep(name)) => match self.opened(name) {
                Some(definition) => definition,
                None => {
                    return Err(Stop::Unchecked(
                        "named types nested deeper than their descriptions unfold",
                    ))
                }
            },
            _ => return Err(Stop::Unchecked("a `$ref` that names no definition")),
        };
        let Refs::Stay { recursion } = self.rules.refs else {
            return self.inline(view, definition, depth);
        };
        let name = definition.name;
        let (open, defining) = self.is_open(name);
        if open {
            if !recursion {
                return unsupported(Rule::Recursive {
                    reference: Reference::Definition(name),
                });
            }
            if !defining && step!(self.height(definition)).is_none() {
                step!(self.define(definition, depth));
            }
            return Ok(());
        }
        if view.len() != 1 {
            return self.inline(view, definition, depth);
        }
        match step!(self.height(definition)) {
            None => self.define(definition, depth),
            Some(height) => {
                let over = match self.rules.limits.max_depth {
                    Some(max) => depth + height > max,
                    None => false,
                };
                if over {
                    step!(self.push_open(definition, true));
                    step!(self.node(step!(read(View::of(&definition.schema))), depth, false));
                    self.open_len -= 1;
                }
                if depth + height > self.deepest {
                    self.deepest = depth + height;
                }
                Ok(())
            }
        }
    }

    /// Lowers `definition` as an entry of `$defs`.
    const fn define(&mut self, definition: &'static Definition, depth: usize) -> Step {
        step!(self.push_open(definition, true));
        let before = self.deepest;
        self.deepest = depth;
        step!(self.node(step!(read(View::of(&definition.schema))), depth, false));
        let height = self.deepest.saturating_sub(depth);
        if before > self.deepest {
            self.deepest = before;
        }
        self.open_len -= 1;
        if self.defined_len == MAX_DEFINED {
            return Err(Stop::Unchecked("more named types than the check keeps"));
        }
        self.defined[self.defined_len] = (definition, height);
        self.defined_len += 1;
        Ok(())
    }

    /// The definition's schema in place of the reference, with the keywords beside the
    /// reference over it.
    const fn inline(&mut self, view: View, definition: &'static Definition, depth: usize) -> Step {
        if self.is_open(definition.name).0 {
            return unsupported(Rule::RecursiveInlined {
                reference: Reference::Definition(definition.name),
            });
        }
        let Some(notes) = view.beside_ref() else {
            return Err(Stop::Unchecked(
                "keywords beside a `$ref` other than a field's",
            ));
        };
        let target = step!(read(View::of(&definition.schema)));
        let merged = match target.base {
            _ if notes.is_empty() && target.is_object() => target,
            Base::Object { .. } | Base::NullUnion(_) if target.notes.is_empty() => View {
                base: target.base,
                notes,
            },
            Base::Bool(_) | Base::NotSchema if notes.is_empty() => {
                return self.node(target, depth, false)
            }
            Base::Bool(_) | Base::NotSchema => View::object(notes),
            _ => return Err(Stop::Unchecked("a definition with keywords over it")),
        };
        step!(self.push_open(definition, false));
        step!(self.node(merged, depth, false));
        self.open_len -= 1;
        Ok(())
    }

    /// One schema of an `allOf` that stays: a `$ref` among them is inlined.
    const fn all_of_schema(&mut self, view: View, depth: usize) -> Step {
        if !self.rules.canonical && view.is_object() {
            if let Some(reference) = view.get(Keyword::Ref) {
                let definition = match reference {
                    Value::Shape(Shape::Ref(definition)) => *definition,
                    _ => return Err(Stop::Unchecked("a recursive `$ref` in `allOf`")),
                };
                return self.inline(view, definition, depth);
            }
        }
        self.node(view, depth, false)
    }

    const fn push_open(&mut self, definition: &'static Definition, as_definition: bool) -> Step {
        if self.open_len == MAX_OPEN {
            return Err(Stop::Unchecked(
                "types nested deeper than the check follows",
            ));
        }
        self.open[self.open_len] = Some((definition, as_definition));
        self.open_len += 1;
        Ok(())
    }

    /// Whether the definition `name` is open, and whether as a definition.
    const fn is_open(&self, name: &str) -> (bool, bool) {
        let (mut open, mut defining) = (false, false);
        let mut i = 0;
        while i < self.open_len {
            if let Some((definition, as_definition)) = self.open[i] {
                if same_str(definition.name, name) {
                    open = true;
                    defining |= as_definition;
                }
            }
            i += 1;
        }
        (open, defining)
    }

    /// The open definition named `name`.
    const fn opened(&self, name: &str) -> Option<&'static Definition> {
        let mut i = self.open_len;
        while i > 0 {
            i -= 1;
            if let Some((definition, _)) = self.open[i] {
                if same_str(definition.name, name) {
                    return Some(definition);
                }
            }
        }
        None
    }

    /// How many levels `definition`, lowered, nests. Two types may share a name (two uses of
    /// a generic type): schemars then names the second otherwise, which the check cannot, so
    /// it leaves such a schema to registration.
    const fn height(&self, definition: &'static Definition) -> Result<Option<usize>, Stop> {
        let mut i = 0;
        while i < self.defined_len {
            let (defined, height) = self.defined[i];
            if same_str(defined.name, definition.name) {
                if !same(&defined.schema, &definition.schema) {
                    return Err(Stop::Unchecked("two types that share a definition name"));
                }
                return Ok(Some(height));
            }
            i += 1;
        }
        Ok(None)
    }

    const fn count_properties(&mut self, more: usize) -> Step {
        self.properties += more;
        match self.rules.limits.max_properties {
            Some(max) if self.properties > max => too_large(Rule::MoreThan {
                max,
                what: "properties",
            }),
            _ => Ok(()),
        }
    }

    const fn count_enum_values(&mut self, more: usize) -> Step {
        self.enum_values += more;
        match self.rules.limits.max_enum_values {
            Some(max) if self.enum_values > max => too_large(Rule::MoreThan {
                max,
                what: "enumeration values",
            }),
            _ => Ok(()),
        }
    }
}

/// Whether every value is a string.
const fn all_strings(values: &[Shape]) -> bool {
    let mut i = 0;
    while i < values.len() {
        if !matches!(values[i], Shape::Str(_)) {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether a value is `null`.
const fn has_null(values: &[Shape]) -> bool {
    let mut i = 0;
    while i < values.len() {
        if matches!(values[i], Shape::Null) {
            return true;
        }
        i += 1;
    }
    false
}
