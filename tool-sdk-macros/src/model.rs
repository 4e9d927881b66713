//! The one model every front end (`#[tool]`, `#[tools]`) builds and the generator reads.
//!
//! A few of these values exist per parameter, once per compilation: variant sizes do not
//! matter, so the enums hold syn nodes inline.
#![allow(clippy::large_enum_variant)]

use proc_macro2::Span;

/// One tool, as parsed from the user's code.
pub(crate) struct ToolDef {
    /// The wire name and the tokens it came from (the `name = "..."` literal, or the fn name).
    pub(crate) name: String,
    pub(crate) name_span: Span,
    /// The description; `None` when neither a doc comment nor `description = "..."` gave one.
    pub(crate) description: Option<String>,
    pub(crate) params: Vec<Param>,
    /// The arguments struct: `<CamelName>Args` beside a function, `__ToolArgs` inside
    /// `define_tool!`'s block.
    pub(crate) args_ident: syn::Ident,
    /// The function's visibility, given to its arguments struct and the struct's fields.
    pub(crate) vis: syn::Visibility,
    pub(crate) callee: Callee,
    pub(crate) is_async: bool,
    /// The declared return type; `None` for `()`.
    pub(crate) output: Option<syn::Type>,
    pub(crate) options: Options,
    /// What the signature showed that `check` judges.
    pub(crate) shape: Shape,
    /// What `define_tool!`'s attributes showed that `check` judges (empty for functions).
    pub(crate) inline_attrs: InlineAttrs,
    /// Where the fn was written, for errors about the tool as a whole.
    pub(crate) span: Span,
    /// Where errors about the returned value go when no return type is written: the value a
    /// closure's body ends with (a fn without a return type returns `()`, which is always fine).
    pub(crate) value_span: Span,
}

/// One `#[tools]` impl block, as parsed: its tools and what `check_set` judges about the block.
pub(crate) struct ToolSetDef {
    pub(crate) self_ty: syn::Type,
    /// `#[tools(crate = path)]`.
    pub(crate) crate_path: Option<syn::Path>,
    /// The trait of a trait impl (`impl Trait for T`).
    pub(crate) trait_path: Option<syn::Path>,
    /// The impl's generic parameters, when it has any.
    pub(crate) generics: Option<syn::Generics>,
    pub(crate) tools: Vec<ToolDef>,
    /// `#[tool = ...]` on a method.
    pub(crate) name_value_attrs: Vec<syn::MetaNameValue>,
    /// `crate = path` on a method's `#[tool(...)]`.
    pub(crate) crate_on_methods: Vec<syn::Path>,
}

/// How generated code calls the user's function.
pub(crate) enum Callee {
    /// A free function, by its name.
    Free(syn::Ident),
    /// An associated function of an impl block; `receiver` when it takes `&self`.
    Method {
        ident: syn::Ident,
        self_ty: syn::Type,
        receiver: bool,
    },
    /// The closure of `define_tool!`, bound to `__handler`.
    Inline,
}

/// The parts of a tool's signature that are not part of its model but decide whether it is a
/// valid tool; parse records them as written, `check` reports them.
#[derive(Default)]
pub(crate) struct Shape {
    /// Generic parameters or a where clause, when there are any.
    pub(crate) generics: Option<syn::Generics>,
    pub(crate) unsafety: Option<syn::token::Unsafe>,
    pub(crate) variadic: Option<syn::Variadic>,
    /// `self` as written, and whether the function is a method of a `#[tools]` impl block.
    pub(crate) receiver: Option<(syn::Receiver, bool)>,
    /// Parameters that cannot be part of a tool, so are not in [`ToolDef::params`].
    pub(crate) rejected: Vec<Rejected>,
    /// A closure's lifetime binder (`for<'a> |..|`).
    pub(crate) closure_lifetimes: Option<syn::BoundLifetimes>,
}

/// A parameter a tool cannot take.
pub(crate) enum Rejected {
    /// A destructuring pattern (or `ref`/`@` binding) rather than a name.
    Pattern(syn::Pat),
    /// `impl Trait`, anywhere a reference or parentheses leave it.
    ImplTrait(syn::Type),
    /// `&mut T`.
    MutRef(syn::Type),
    /// A closure parameter without a type.
    Untyped(syn::Pat),
}

/// What `define_tool!`'s attributes showed that `check` judges.
#[derive(Default)]
pub(crate) struct InlineAttrs {
    /// Every `#[tool(...)]` after the first.
    pub(crate) repeated_tool: Vec<syn::Attribute>,
    /// Attributes other than doc comments and `#[tool(...)]`.
    pub(crate) foreign: Vec<syn::Attribute>,
    /// No `name = "..."` was given: where to say so (the `#[tool(...)]` it belongs in, else the
    /// closure's first `|`).
    pub(crate) unnamed: Option<Unnamed>,
}

/// Where an inline tool's missing name belongs.
pub(crate) enum Unnamed {
    /// In this `#[tool(...)]`.
    InAttribute(syn::Attribute),
    /// Before the closure starting here: there is no `#[tool(...)]` at all.
    BeforeClosure(Span),
}

/// One parameter of the function.
pub(crate) struct Param {
    /// The parameter's binding (`city` in `city: String`).
    pub(crate) ident: syn::Ident,
    /// The type as written.
    pub(crate) ty: syn::Type,
    pub(crate) kind: ParamKind,
    /// The parameter's tool attributes as written, for `check`.
    pub(crate) attrs: ParamAttrs,
}

/// The attributes `#[tool]` reads on a parameter, kept whole: an error about one covers the
/// whole attribute (a span taken from a multi-token node covers only its first token on stable).
#[derive(Default)]
pub(crate) struct ParamAttrs {
    /// Every `#[context]`, in order.
    pub(crate) context: Vec<syn::Attribute>,
    /// The first `#[arg(...)]`.
    pub(crate) arg: Option<syn::Attribute>,
    /// Whether `#[arg(description = "..")]` was given as well as a doc comment.
    pub(crate) described_twice: bool,
}

pub(crate) enum ParamKind {
    /// Filled from the model's arguments; part of the schema.
    Argument(Argument),
    /// Filled from the call's context; never part of the schema.
    Context,
}

pub(crate) struct Argument {
    /// The name in the JSON arguments.
    pub(crate) wire_name: String,
    pub(crate) wire_span: Span,
    pub(crate) description: Option<String>,
    pub(crate) default: Option<DefaultValue>,
    /// For `&T` parameters, `T`: the argument is decoded as `T::Owned` and lent to the function.
    pub(crate) borrowed: Option<syn::Type>,
    /// `#[arg(unchecked)]`: left out of the compile-time dialect check.
    pub(crate) unchecked: bool,
}

pub(crate) enum DefaultValue {
    /// `#[arg(default)]`: the type's `Default`.
    Trait,
    /// `#[arg(default = expr)]`.
    Expr(syn::Expr),
}

/// Options of `#[tool(...)]`, carried into the tool's definition.
#[derive(Default)]
pub(crate) struct Options {
    pub(crate) timeout_millis: Option<u64>,
    pub(crate) return_direct: bool,
    pub(crate) overrides_built_in: bool,
    pub(crate) skip_permission: bool,
    pub(crate) defer: Option<DeferMode>,
    /// `read_only`: the tool changes nothing (a hint for hosts, such as MCP's).
    pub(crate) read_only: bool,
    /// `long_running`: the tool's work outlasts a request; MCP may serve it as a task.
    pub(crate) long_running: bool,
    /// `result_limit = N`: bytes of a result the model reads.
    pub(crate) result_limit: Option<u64>,
    /// `destructive` or `destructive = false`: whether the tool's changes may destroy.
    pub(crate) destructive: Option<bool>,
    pub(crate) crate_path: Option<syn::Path>,
    /// `confirm` (every call) or `confirm = predicate` (over the typed arguments).
    pub(crate) confirm: Option<Hook>,
    /// `compensate = action`: rolls back a successful call, given its arguments and output.
    pub(crate) compensate: Option<Hook>,
    /// `dialects(...)`: the dialects checked when the tool is compiled, instead of those its
    /// package's manifest chooses; each a variant of `Dialect`, where it is named. A method of
    /// `#[tools(dialects(...))]` that names none has the block's.
    pub(crate) dialects: Option<Vec<syn::Ident>>,
}

/// A function the tool calls besides its handler (a confirmation predicate, a compensating
/// action).
pub(crate) enum Hook {
    /// A flag without a function (`confirm` alone).
    Always,
    /// An expression whose signature is not visible (a path to a fn): called with the
    /// arguments alone.
    Call(syn::Expr),
    /// A closure, written as the expression or as the value of a block, whose parameters are
    /// visible.
    Closure {
        expr: syn::Expr,
        /// `async |..|`: kept by `define_tool!`, it is called as an `AsyncFn`.
        is_async: bool,
        /// The parameters after the first two (a compensating action's context parameters).
        extra: Vec<ExtraParam>,
    },
    /// A method of the same `#[tools]` impl block, by name.
    Method {
        ident: syn::Ident,
        receiver: bool,
        /// The parameters after the receiver and the first two.
        extra: Vec<ExtraParam>,
    },
}

/// A parameter of a hook beyond those every hook of its kind takes: for a compensating action,
/// one filled from the call's context.
#[derive(Clone)]
pub(crate) struct ExtraParam {
    /// The pattern as written, for errors.
    pub(crate) pat: proc_macro2::TokenStream,
    /// The type; `None` for a closure parameter written without one.
    pub(crate) ty: Option<syn::Type>,
}

impl Hook {
    /// The hook's extra parameters (none for a path, whose signature is not visible).
    pub(crate) fn extra(&self) -> &[ExtraParam] {
        match self {
            Hook::Closure { extra, .. } | Hook::Method { extra, .. } => extra,
            Hook::Always | Hook::Call(_) => &[],
        }
    }
}

#[derive(Clone, Copy)]
pub(crate) enum DeferMode {
    Always,
    Auto,
    Never,
}

impl ToolDef {
    /// The parameters that are part of the schema, with their argument data.
    pub(crate) fn arguments(&self) -> impl Iterator<Item = (&Param, &Argument)> {
        self.params.iter().filter_map(|param| match &param.kind {
            ParamKind::Argument(argument) => Some((param, argument)),
            ParamKind::Context => None,
        })
    }
}
