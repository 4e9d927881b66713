//! The schema schemars' derive writes for a struct or an enum, as tokens of a `Shape`: keyword
//! for keyword, in schemars' order, each field's type giving its own through `Described`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, Fields};

use crate::described::attrs::{self, renamed, Bound, Container, Doc};

use crate::described::attrs::{MAX_LENGTH, MIN_LENGTH};

/// Builds the tokens of shapes, naming the runtime crate through `private`.
pub(crate) struct Builder<'a> {
    pub(crate) private: &'a TokenStream,
    pub(crate) container: &'a Container,
    /// The names of the type's type parameters.
    pub(crate) type_parameters: &'a [String],
    /// The types whose descriptions the schema uses, each standing for a type parameter of the
    /// function that builds it (`__D0`, `__D1`, ...): see `described::expand`.
    pub(crate) used: &'a std::cell::RefCell<Vec<(String, syn::Type)>>,
}

/// A keyword's value being built: a list or names can still grow at the front.
enum Value {
    Shape(TokenStream),
    List(Vec<TokenStream>),
    Names(Vec<TokenStream>),
}

/// A schema being built: its keywords, by name, in order.
type Entries = Vec<(&'static str, Value)>;

/// What a struct's fields (or a variant's) are: one field's schema (a newtype is its field),
/// or a schema of their own; `None` when no `const` can say them.
enum Content {
    Newtype(TokenStream),
    Schema(Entries),
}

impl Builder<'_> {
    /// The type's schema, and whether a use of it has it inline (no definition in `$defs`).
    pub(crate) fn of(&self, data: &Data) -> syn::Result<(TokenStream, bool)> {
        let container = self.container;
        if container.opaque.is_some() {
            return Ok((self.unchecked(), true));
        }
        if let Some(with) = &container.with {
            return Ok((self.type_shape(with), false));
        }
        let schema = match data {
            Data::Struct(data) if container.transparent => {
                let mut kept = Vec::new();
                for field in &data.fields {
                    if !attrs::field(&field.attrs)?.skip {
                        kept.push(&field.ty);
                    }
                }
                return Ok(match kept[..] {
                    [only] => (self.type_shape(only), true),
                    _ => (self.unchecked(), true),
                });
            }
            Data::Struct(data) => {
                match self.fields(&data.fields, container.rename_all.as_deref())? {
                    Some(Content::Newtype(shape)) => {
                        self.annotated(shape, self.doc(Vec::new(), &container.doc))
                    }
                    Some(Content::Schema(entries)) => {
                        self.schema(self.doc(entries, &container.doc))
                    }
                    None => self.unchecked(),
                }
            }
            Data::Enum(data) => self.enumeration(data)?,
            Data::Union(_) => self.unchecked(),
        };
        Ok((schema, container.inline))
    }

    /// A struct's fields, or a variant's.
    fn fields(&self, fields: &Fields, rename_all: Option<&str>) -> syn::Result<Option<Content>> {
        match fields {
            Fields::Unit => Ok(Some(Content::Schema(vec![("type", self.text("null"))]))),
            Fields::Unnamed(unnamed) => {
                let mut items = Vec::new();
                for field in &unnamed.unnamed {
                    let attrs = attrs::field(&field.attrs)?;
                    if attrs.skip {
                        continue;
                    }
                    if attrs.opaque.is_some() || attrs.flatten {
                        return Ok(None);
                    }
                    items.push(self.field_shape(&field.ty, &attrs));
                }
                if unnamed.unnamed.len() == 1 {
                    if let Some(only) = items.pop() {
                        return Ok(Some(Content::Newtype(only)));
                    }
                }
                let len = items.len() as i128;
                let p = self.private;
                let mut entries = vec![("type", self.text("array"))];
                if !items.is_empty() {
                    entries.push(("prefixItems", Value::List(items)));
                    entries.push(("minItems", Value::Shape(quote!(#p::Shape::Int(#len)))));
                }
                entries.push(("maxItems", Value::Shape(quote!(#p::Shape::Int(#len)))));
                Ok(Some(Content::Schema(entries)))
            }
            Fields::Named(named) => {
                let mut entries = vec![("type", self.text("object"))];
                if self.container.deny_unknown_fields {
                    entries.push(("additionalProperties", self.boolean(false)));
                }
                let mut properties = Vec::new();
                let mut required = Vec::new();
                let mut open = None;
                for field in &named.named {
                    let attrs = attrs::field(&field.attrs)?;
                    if attrs.skip {
                        continue;
                    }
                    if attrs.opaque.is_some() {
                        return Ok(None);
                    }
                    if attrs.flatten {
                        // A flattened map of string keys opens the object to its values, where
                        // nothing closes it; other flattened types merge schemas (integer keys
                        // bring `patternProperties`), which no `const` can.
                        match map_values(&field.ty) {
                            Some(values) if !self.container.deny_unknown_fields => {
                                open = Some(self.type_shape(values))
                            }
                            _ => return Ok(None),
                        }
                        continue;
                    }
                    let ident = field
                        .ident
                        .as_ref()
                        .map(|ident| {
                            let text = ident.to_string();
                            text.strip_prefix("r#").map(str::to_owned).unwrap_or(text)
                        })
                        .unwrap_or_default();
                    let name = attrs
                        .rename
                        .clone()
                        .unwrap_or_else(|| renamed(&ident, rename_all, false));
                    let shape = self.field_shape(&field.ty, &attrs);
                    let optional = attrs.default || self.container.default || is_option(&field.ty);
                    if !optional {
                        required.push(self.str(&name));
                    }
                    properties.push(quote!((#name, #shape)));
                }
                if !properties.is_empty() {
                    entries.push(("properties", Value::Names(properties)));
                }
                if !required.is_empty() {
                    entries.push(("required", Value::List(required)));
                }
                if let Some(values) = open {
                    entries.push(("additionalProperties", Value::Shape(values)));
                }
                Ok(Some(Content::Schema(entries)))
            }
        }
    }

    /// An enum, by its serde representation.
    fn enumeration(&self, data: &syn::DataEnum) -> syn::Result<TokenStream> {
        let container = self.container;
        let mut variants = Vec::new();
        for variant in &data.variants {
            let attrs = attrs::variant(&variant.attrs)?;
            if attrs.skip {
                continue;
            }
            if attrs.opaque.is_some() || attrs.untagged {
                return Ok(self.unchecked());
            }
            let name = attrs.rename.clone().unwrap_or_else(|| {
                renamed(
                    &variant.ident.to_string(),
                    container.rename_all.as_deref(),
                    true,
                )
            });
            variants.push((variant, attrs, name));
        }
        if variants.is_empty() {
            return Ok(self.unchecked());
        }
        let rule = container.rename_all_fields.as_deref();
        let mut branches = Vec::new();
        let keyword = match (&container.tag, &container.content, container.untagged) {
            (_, _, true) => {
                for (variant, attrs, _) in &variants {
                    let Some(content) = self.content(&variant.fields, rule)? else {
                        return Ok(self.unchecked());
                    };
                    branches.push(self.annotated_content(content, &attrs.doc));
                }
                "anyOf"
            }
            (Some(tag), Some(content_name), false) => {
                for (variant, attrs, name) in &variants {
                    let mut properties = vec![self.property(tag, self.tag_schema(name))];
                    let mut required = vec![self.str(tag)];
                    if !matches!(variant.fields, Fields::Unit) {
                        let Some(content) = self.content(&variant.fields, rule)? else {
                            return Ok(self.unchecked());
                        };
                        properties.push(self.property(content_name, self.content_shape(content)));
                        required.push(self.str(content_name));
                    }
                    let mut entries = vec![
                        ("type", self.text("object")),
                        ("properties", Value::Names(properties)),
                        ("required", Value::List(required)),
                    ];
                    if container.deny_unknown_fields {
                        entries.push(("additionalProperties", self.boolean(false)));
                    }
                    branches.push(self.schema(self.doc(entries, &attrs.doc)));
                }
                "oneOf"
            }
            (Some(tag), None, false) => {
                for (variant, attrs, name) in &variants {
                    let Some(entries) = self.internally_tagged(variant, tag, name, rule)? else {
                        return Ok(self.unchecked());
                    };
                    branches.push(self.schema(self.doc(entries, &attrs.doc)));
                }
                "oneOf"
            }
            (None, _, false) => {
                // schemars gathers the plain unit variants into one enumeration of strings.
                let plain = |variant: &syn::Variant, attrs: &attrs::Variant| {
                    matches!(variant.fields, Fields::Unit)
                        && attrs.doc.title.is_none()
                        && attrs.doc.description.is_none()
                };
                let units: Vec<TokenStream> = variants
                    .iter()
                    .filter(|(variant, attrs, _)| plain(variant, attrs))
                    .map(|(_, _, name)| self.str(name))
                    .collect();
                let has_units = !units.is_empty();
                let unit_entries =
                    vec![("type", self.text("string")), ("enum", Value::List(units))];
                if variants
                    .iter()
                    .all(|(variant, attrs, _)| plain(variant, attrs))
                {
                    return Ok(self.schema(self.doc(unit_entries, &container.doc)));
                }
                if has_units {
                    branches.push(self.schema(unit_entries));
                }
                for (variant, attrs, name) in &variants {
                    if plain(variant, attrs) {
                        continue;
                    }
                    let entries = if matches!(variant.fields, Fields::Unit) {
                        vec![("type", self.text("string")), ("const", self.text(name))]
                    } else {
                        let Some(content) = self.content(&variant.fields, rule)? else {
                            return Ok(self.unchecked());
                        };
                        vec![
                            ("type", self.text("object")),
                            (
                                "properties",
                                Value::Names(
                                    vec![self.property(name, self.content_shape(content))],
                                ),
                            ),
                            ("required", Value::List(vec![self.str(name)])),
                            ("additionalProperties", self.boolean(false)),
                        ]
                    };
                    branches.push(self.schema(self.doc(entries, &attrs.doc)));
                }
                "oneOf"
            }
        };
        let entries = vec![(keyword, Value::List(branches))];
        Ok(self.schema(self.doc(entries, &container.doc)))
    }

    /// A variant's content, as an untagged variant has it (its fields' names by `rule`).
    fn content(&self, fields: &Fields, rule: Option<&str>) -> syn::Result<Option<Content>> {
        let container = Container {
            deny_unknown_fields: self.container.deny_unknown_fields,
            ..Container::default()
        };
        let builder = Builder {
            private: self.private,
            container: &container,
            type_parameters: self.type_parameters,
            used: self.used,
        };
        builder.fields(fields, rule)
    }

    /// A variant of an internally tagged enum: its content with the tag as its first property
    /// and first required name.
    fn internally_tagged(
        &self,
        variant: &syn::Variant,
        tag: &str,
        name: &str,
        rule: Option<&str>,
    ) -> syn::Result<Option<Entries>> {
        let tag_property = self.property(tag, self.tag_schema(name));
        match &variant.fields {
            Fields::Unit => {
                let mut entries = vec![
                    ("type", self.text("object")),
                    ("properties", Value::Names(vec![tag_property])),
                    ("required", Value::List(vec![self.str(tag)])),
                ];
                if self.container.deny_unknown_fields {
                    entries.push(("additionalProperties", self.boolean(false)));
                }
                Ok(Some(entries))
            }
            Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
                // A newtype of a named type: its `$ref`, the tag's object beside it.
                let p = self.private;
                let shape = self.type_shape(&unnamed.unnamed[0].ty);
                Ok(Some(vec![
                    ("$ref", Value::Shape(quote!(#p::reference_of(&#shape)))),
                    ("type", self.text("object")),
                    ("properties", Value::Names(vec![tag_property])),
                    ("required", Value::List(vec![self.str(tag)])),
                ]))
            }
            Fields::Named(_) => {
                let Some(Content::Schema(mut entries)) = self.content(&variant.fields, rule)?
                else {
                    return Ok(None);
                };
                let mut tagged = (false, false);
                for (keyword, value) in &mut entries {
                    match (*keyword, value) {
                        ("properties", Value::Names(names)) => {
                            names.insert(0, tag_property.clone());
                            tagged.0 = true;
                        }
                        ("required", Value::List(names)) => {
                            names.insert(0, self.str(tag));
                            tagged.1 = true;
                        }
                        _ => {}
                    }
                }
                if !tagged.0 {
                    entries.push(("properties", Value::Names(vec![tag_property])));
                }
                if !tagged.1 {
                    entries.push(("required", Value::List(vec![self.str(tag)])));
                }
                Ok(Some(entries))
            }
            Fields::Unnamed(_) => Ok(None),
        }
    }

    /// `{"type": "string", "const": name}`.
    fn tag_schema(&self, name: &str) -> TokenStream {
        self.schema(vec![
            ("type", self.text("string")),
            ("const", self.text(name)),
        ])
    }

    /// A field's schema: its type's, with the keywords its attributes add over it.
    fn field_shape(&self, ty: &syn::Type, attrs: &attrs::Field) -> TokenStream {
        let p = self.private;
        let base = match &attrs.with {
            Some(with) => self.type_shape(with),
            None => self.type_shape(ty),
        };
        let mut notes = Vec::new();
        for (keyword, bound) in &attrs.validation {
            let value = match bound {
                Bound::Number(syn::Lit::Int(int)) => match int.base10_parse::<i128>() {
                    Ok(value) => quote!(#p::Shape::Int(#value)),
                    Err(_) => return self.unchecked(),
                },
                Bound::Number(syn::Lit::Float(float)) => match float.base10_parse::<f64>() {
                    Ok(value) => quote!(#p::Shape::Float(#value)),
                    Err(_) => return self.unchecked(),
                },
                Bound::Text(text) if *keyword == "pattern" => self.str(text),
                // A bound given by a path or an expression: known only when it is run.
                _ => return self.unchecked(),
            };
            notes.push((*keyword, Value::Shape(value)));
        }
        let mut notes = self.doc(notes, &attrs.doc);
        // schemars writes a defaulted field's default value beside its schema (for a type it
        // can serialize, as argument types most often are): what it is decides no verdict,
        // that it is there does (a `$ref` beside it is inlined).
        // Inside a generic type's impl a field of a type parameter's type is not known to
        // serialize, and schemars writes no default for it.
        if (attrs.default || self.container.default) && !self.mentions_type_parameter(ty) {
            notes.push(("default", Value::Shape(quote!(#p::Shape::Null))));
        }
        if notes.is_empty() {
            return base;
        }
        let notes = self.keywords_of(notes, Some(&base));
        quote!(#p::Shape::Annotated(&#base, &[#(#notes),*]))
    }

    /// `shape` with `notes` over it.
    fn annotated(&self, shape: TokenStream, notes: Entries) -> TokenStream {
        if notes.is_empty() {
            return shape;
        }
        let p = self.private;
        let notes = self.keywords(notes);
        quote!(#p::Shape::Annotated(&#shape, &[#(#notes),*]))
    }

    /// A variant's content with its doc over it.
    fn annotated_content(&self, content: Content, doc: &Doc) -> TokenStream {
        match content {
            Content::Newtype(shape) => self.annotated(shape, self.doc(Vec::new(), doc)),
            Content::Schema(entries) => self.schema(self.doc(entries, doc)),
        }
    }

    fn content_shape(&self, content: Content) -> TokenStream {
        match content {
            Content::Newtype(shape) => shape,
            Content::Schema(entries) => self.schema(entries),
        }
    }

    /// Whether `ty` names one of the type's type parameters.
    fn mentions_type_parameter(&self, ty: &syn::Type) -> bool {
        let tokens: Vec<String> = quote!(#ty).into_iter().flat_map(flatten_tokens).collect();
        self.type_parameters
            .iter()
            .any(|parameter| tokens.iter().any(|token| token == parameter))
    }

    /// A type's shape, as a use of it has it: the description of the type parameter that
    /// stands for it.
    fn type_shape(&self, ty: &syn::Type) -> TokenStream {
        let p = self.private;
        let key = quote!(#ty).to_string();
        let mut used = self.used.borrow_mut();
        let place = match used.iter().position(|(known, _)| *known == key) {
            Some(place) => place,
            None => {
                used.push((key, ty.clone()));
                used.len() - 1
            }
        };
        let parameter = parameter(place);
        quote!(<#parameter as #p::Described>::SHAPE)
    }

    /// `entries` with the title and description of `doc` after them.
    fn doc(&self, mut entries: Entries, doc: &Doc) -> Entries {
        if let Some(title) = &doc.title {
            entries.push(("title", self.text(title)));
        }
        if let Some(description) = &doc.description {
            entries.push(("description", self.text(description)));
        }
        entries
    }

    fn schema(&self, entries: Entries) -> TokenStream {
        let p = self.private;
        let entries = self.keywords(entries);
        quote!(#p::Shape::Schema(&[#(#entries),*]))
    }

    fn keywords(&self, entries: Entries) -> Vec<TokenStream> {
        self.keywords_of(entries, None)
    }

    /// The entries' tokens; a length bound's keyword decided by `field`'s type.
    fn keywords_of(&self, entries: Entries, field: Option<&TokenStream>) -> Vec<TokenStream> {
        let p = self.private;
        entries
            .into_iter()
            .map(|(keyword, value)| {
                let keyword = match (keyword, field) {
                    (MIN_LENGTH, Some(base)) => quote!(#p::length_keyword(&#base, true)),
                    (MAX_LENGTH, Some(base)) => quote!(#p::length_keyword(&#base, false)),
                    _ => keyword_tokens(p, keyword),
                };
                let value = match value {
                    Value::Shape(shape) => shape,
                    Value::List(items) => quote!(#p::Shape::List(&[#(#items),*])),
                    Value::Names(names) => quote!(#p::Shape::Names(&[#(#names),*])),
                };
                quote!((#keyword, #value))
            })
            .collect()
    }

    fn property(&self, name: &str, shape: TokenStream) -> TokenStream {
        quote!((#name, #shape))
    }

    fn text(&self, text: &str) -> Value {
        Value::Shape(self.str(text))
    }

    fn str(&self, text: &str) -> TokenStream {
        let p = self.private;
        quote!(#p::Shape::Str(#text))
    }

    fn boolean(&self, value: bool) -> Value {
        let p = self.private;
        Value::Shape(quote!(#p::Shape::Bool(#value)))
    }

    fn unchecked(&self) -> TokenStream {
        let p = self.private;
        quote!(#p::Shape::Unchecked)
    }
}

/// The type parameter that stands for the `place`th type used.
pub(crate) fn parameter(place: usize) -> syn::Ident {
    quote::format_ident!("__D{}", place)
}

/// The `Keyword` named `name`.
fn keyword_tokens(p: &TokenStream, name: &str) -> TokenStream {
    let variant = match name {
        "type" => "Type",
        "title" => "Title",
        "description" => "Description",
        "default" => "Default",
        "const" => "Const",
        "enum" => "Enum",
        "properties" => "Properties",
        "required" => "Required",
        "additionalProperties" => "AdditionalProperties",
        "prefixItems" => "PrefixItems",
        "minItems" => "MinItems",
        "maxItems" => "MaxItems",
        "minimum" => "Minimum",
        "maximum" => "Maximum",
        "minLength" => "MinLength",
        "maxLength" => "MaxLength",
        "pattern" => "Pattern",
        "anyOf" => "AnyOf",
        "oneOf" => "OneOf",
        "$ref" => "Ref",
        other => return quote!(#p::Keyword::Other(#other)),
    };
    let variant = syn::Ident::new(variant, proc_macro2::Span::call_site());
    quote!(#p::Keyword::#variant)
}

/// Whether `ty` is written as an `Option`.
fn is_option(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(path)
        if path.path.segments.last().is_some_and(|segment| segment.ident == "Option"))
}

/// The values' type of a map type of string keys, written as `HashMap<String, V>` or
/// `BTreeMap<String, V>`.
fn map_values(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let segment = path.path.segments.last()?;
    if segment.ident != "HashMap" && segment.ident != "BTreeMap" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(arguments) = &segment.arguments else {
        return None;
    };
    let mut types = arguments.args.iter().filter_map(|argument| match argument {
        syn::GenericArgument::Type(ty) => Some(ty),
        _ => None,
    });
    let key = types.next()?;
    let is_string = matches!(key, syn::Type::Path(path)
        if path.path.segments.last().is_some_and(|segment| segment.ident == "String"));
    types.next().filter(|_| is_string)
}

/// The identifiers of a token tree, groups opened.
fn flatten_tokens(token: proc_macro2::TokenTree) -> Vec<String> {
    match token {
        proc_macro2::TokenTree::Ident(ident) => vec![ident.to_string()],
        proc_macro2::TokenTree::Group(group) => group
            .stream()
            .into_iter()
            .flat_map(flatten_tokens)
            .collect(),
        _ => Vec::new(),
    }
}
