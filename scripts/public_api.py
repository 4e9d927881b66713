#!/usr/bin/env python3
"""Lists the public API of a crate from its rustdoc JSON, one item a line, sorted.

Each line is an item users can name: a module, type, trait (with its supertraits), function,
constant, macro, a struct's public field, an enum's variant (with its fields), a trait's item,
an inherent method (named with its impl's type), and the traits a type implements (`Send` and
`Sync` of the auto traits, no blanket impls), with signatures, `where` clauses and the
attributes that change what a user may do (`#[non_exhaustive]`), so that any change to the API
shows as a changed line in review.

Usage: public_api.py TARGET/doc/CRATE.json
"""

import json
import sys


def render_type(t):
    """A type as Rust writes it, near enough to read a change."""
    if t is None:
        return "()"
    (kind, value), = t.items()
    if kind == "primitive":
        return value
    if kind == "generic":
        return value
    if kind == "resolved_path":
        return value["path"] + render_args(value.get("args"))
    if kind == "borrowed_ref":
        lifetime = f"{value['lifetime']} " if value.get("lifetime") else ""
        mutable = "mut " if value.get("is_mutable") else ""
        return f"&{lifetime}{mutable}{render_type(value['type'])}"
    if kind == "tuple":
        return "(" + ", ".join(render_type(item) for item in value) + ")"
    if kind == "slice":
        return f"[{render_type(value)}]"
    if kind == "array":
        return f"[{render_type(value['type'])}; {value['len']}]"
    if kind == "raw_pointer":
        mutable = "mut" if value.get("is_mutable") else "const"
        return f"*{mutable} {render_type(value['type'])}"
    if kind == "impl_trait":
        return "impl " + render_bounds(value)
    if kind == "dyn_trait":
        traits = [render_poly(trait) for trait in value.get("traits", [])]
        if value.get("lifetime"):
            traits.append(value["lifetime"])
        return "dyn " + " + ".join(traits)
    if kind == "qualified_path":
        trait = value.get("trait")
        self_type = render_type(value["self_type"])
        if trait:
            return f"<{self_type} as {trait['path']}>::{value['name']}"
        return f"{self_type}::{value['name']}"
    if kind == "function_pointer":
        decl = value["sig"]
        inputs = ", ".join(render_type(ty) for _, ty in decl["inputs"])
        output = decl.get("output")
        return f"fn({inputs})" + (f" -> {render_type(output)}" if output else "")
    if kind == "infer":
        return "_"
    return kind


def render_poly(trait):
    return trait["trait"]["path"] + render_args(trait["trait"].get("args"))


def render_bounds(bounds):
    out = []
    for bound in bounds:
        if "trait_bound" in bound:
            tb = bound["trait_bound"]
            out.append(tb["trait"]["path"] + render_args(tb["trait"].get("args")))
        elif "outlives" in bound:
            out.append(bound["outlives"])
        elif "use" in bound:
            out.append("use<..>")
    return " + ".join(out)


def render_args(args):
    if not args:
        return ""
    if "angle_bracketed" in args:
        parts = []
        for arg in args["angle_bracketed"].get("args", []):
            (kind, value), = arg.items()
            if kind == "type":
                parts.append(render_type(value))
            elif kind == "lifetime":
                parts.append(value)
            elif kind == "const":
                parts.append(value.get("expr", "_"))
            else:
                parts.append("_")
        for constraint in args["angle_bracketed"].get("constraints", []):
            binding = constraint.get("binding", {})
            if "equality" in binding:
                term = binding["equality"]
                rendered = render_type(term["type"]) if "type" in term else "_"
                parts.append(f"{constraint['name']} = {rendered}")
            else:
                parts.append(f"{constraint['name']}: {render_bounds(binding.get('constraint', []))}")
        return "<" + ", ".join(parts) + ">" if parts else ""
    if "parenthesized" in args:
        value = args["parenthesized"]
        inputs = ", ".join(render_type(ty) for ty in value.get("inputs", []))
        output = value.get("output")
        return f"({inputs})" + (f" -> {render_type(output)}" if output else "")
    return ""


def render_generics(generics):
    params = []
    for param in generics.get("params", []):
        kind = param["kind"]
        if "type" in kind:
            if kind["type"].get("is_synthetic"):
                continue
            bounds = render_bounds(kind["type"].get("bounds", []))
            params.append(param["name"] + (f": {bounds}" if bounds else ""))
        elif "lifetime" in kind:
            params.append(param["name"])
        elif "const" in kind:
            params.append(f"const {param['name']}: {render_type(kind['const']['type'])}")
    return "<" + ", ".join(params) + ">" if params else ""


def render_self(ty):
    """`self`, `&self`, `&'a mut self`, or `self: Type`: the receiver as written, lifetime kept
    (`&'a self` ties what a method returns to the receiver, which is part of its signature)."""
    if ty == {"generic": "Self"}:
        return "self"
    if "borrowed_ref" in ty and ty["borrowed_ref"]["type"] == {"generic": "Self"}:
        borrowed = ty["borrowed_ref"]
        lifetime = f"{borrowed['lifetime']} " if borrowed.get("lifetime") else ""
        mutable = "mut " if borrowed.get("is_mutable") else ""
        return f"&{lifetime}{mutable}self"
    return f"self: {render_type(ty)}"


def render_fn(name, function):
    sig = function["sig"]
    header = function.get("header", {})
    prefix = "async " if header.get("is_async") else ""
    prefix += "const " if header.get("is_const") else ""
    inputs = []
    for param_name, ty in sig["inputs"]:
        inputs.append(render_self(ty) if param_name == "self" else f"{param_name}: {render_type(ty)}")
    output = sig.get("output")
    generics = render_generics(function.get("generics", {}))
    return f"{prefix}fn {name}{generics}({', '.join(inputs)})" + (
        f" -> {render_type(output)}" if output else ""
    )


# Attributes that change what a user may do with an item.
ATTRS = ("non_exhaustive", "must_use")


def render_where(generics):
    """A `where` clause's predicates, as Rust writes them."""
    out = []
    for predicate in generics.get("where_predicates", []):
        if "bound_predicate" in predicate:
            bound = predicate["bound_predicate"]
            out.append(f"{render_type(bound['type'])}: {render_bounds(bound.get('bounds', []))}")
        elif "lifetime_predicate" in predicate:
            lifetime = predicate["lifetime_predicate"]
            out.append(f"{lifetime['lifetime']}: {' + '.join(lifetime.get('outlives', []))}")
    return " where " + ", ".join(out) if out else ""


class Lister:
    def __init__(self, doc):
        self.index = doc["index"]
        self.lines = set()
        self.seen = set()

    def item(self, item_id):
        return self.index.get(str(item_id))

    def module(self, module, path):
        for item_id in module["items"]:
            item = self.item(item_id)
            if item is None or item.get("visibility") != "public":
                continue
            inner = item["inner"]
            if "use" in inner:
                use = inner["use"]
                target = self.item(use["id"]) if use.get("id") is not None else None
                if use.get("is_glob"):
                    if target and "module" in target["inner"]:
                        self.module(target["inner"]["module"], path)
                    continue
                if target is None:
                    self.lines.add(f"pub use {path}::{use['name']} = {use['source']}")
                    continue
                self.emit(target, f"{path}::{use['name']}")
            else:
                self.emit(item, f"{path}::{item['name']}")

    def emit(self, item, path):
        inner = item["inner"]
        marks = "".join(f"#[{attr}] " for attr in item.get("attrs", []) if attr in ATTRS)
        if item.get("deprecation"):
            marks += "#[deprecated] "
        (kind, value), = inner.items()
        key = (item["id"], path)
        if key in self.seen:
            return
        self.seen.add(key)
        if kind == "module":
            self.lines.add(f"mod {path}")
            self.module(value, path)
        elif kind == "struct":
            stripped = isinstance(value["kind"], dict) and value["kind"].get("plain", {}).get("has_stripped_fields")
            self.lines.add(
                f"{marks}struct {path}{render_generics(value['generics'])}{render_where(value['generics'])}"
                + (" { .. }" if stripped else "")
            )
            fields = value["kind"].get("plain", {}).get("fields", []) if isinstance(value["kind"], dict) else []
            for field_id in fields:
                field = self.item(field_id)
                if field and field.get("visibility") == "public":
                    self.lines.add(f"field {path}.{field['name']}: {render_type(field['inner']['struct_field'])}")
            if isinstance(value["kind"], dict) and "tuple" in value["kind"]:
                for position, field_id in enumerate(value["kind"]["tuple"]):
                    field = self.item(field_id) if field_id is not None else None
                    if field and field.get("visibility") == "public":
                        self.lines.add(f"field {path}.{position}: {render_type(field['inner']['struct_field'])}")
            self.impls(value["impls"], path)
        elif kind == "enum":
            self.lines.add(f"{marks}enum {path}{render_generics(value['generics'])}")
            for variant_id in value["variants"]:
                variant = self.item(variant_id)
                if variant:
                    self.lines.add(f"variant {path}::{variant['name']}{self.variant_fields(variant)}")
            self.impls(value["impls"], path)
        elif kind == "union":
            self.lines.add(f"union {path}")
            self.impls(value["impls"], path)
        elif kind == "trait":
            supertraits = render_bounds(value.get("bounds", []))
            self.lines.add(
                f"trait {path}{render_generics(value['generics'])}"
                + (f": {supertraits}" if supertraits else "")
                + render_where(value["generics"])
            )
            for member_id in value["items"]:
                member = self.item(member_id)
                if member:
                    self.member(member, path, in_trait=True)
        elif kind == "function":
            self.lines.add(f"{marks}{render_fn(path, value)}")
        elif kind == "constant":
            self.lines.add(f"const {path}: {render_type(value['type'])}")
        elif kind == "static":
            self.lines.add(f"static {path}: {render_type(value['type'])}")
        elif kind == "type_alias":
            self.lines.add(f"type {path}{render_generics(value['generics'])} = {render_type(value['type'])}")
        elif kind in ("macro", "proc_macro"):
            self.lines.add(f"macro {path}")
        else:
            self.lines.add(f"{kind} {path}")

    def member(self, member, path, in_trait=False):
        (kind, value), = member["inner"].items()
        name = f"{path}::{member['name']}"
        if kind == "function":
            provided = " { provided }" if in_trait and value.get("has_body") else ""
            self.lines.add(render_fn(name, value) + render_where(value.get("generics", {})) + provided)
        elif kind == "assoc_type":
            bounds = render_bounds(value.get("bounds", []))
            self.lines.add(f"type {name}" + (f": {bounds}" if bounds else ""))
        elif kind == "assoc_const":
            self.lines.add(f"const {name}: {render_type(value['type'])}")

    def variant_fields(self, variant):
        kind = variant["inner"]["variant"]["kind"]
        if kind == "plain":
            return ""
        if "tuple" in kind:
            fields = [self.item(field) for field in kind["tuple"] if field is not None]
            return "(" + ", ".join(render_type(field["inner"]["struct_field"]) for field in fields if field) + ")"
        fields = [self.item(field) for field in kind["struct"]["fields"]]
        rendered = ", ".join(
            f"{field['name']}: {render_type(field['inner']['struct_field'])}" for field in fields if field
        )
        return " { " + rendered + (", .." if kind["struct"].get("has_stripped_fields") else "") + " }"

    def impls(self, impl_ids, path):
        for impl_id in impl_ids:
            impl_item = self.item(impl_id)
            if impl_item is None:
                continue
            impl = impl_item["inner"]["impl"]
            trait = impl.get("trait")
            if impl.get("blanket_impl") is not None:
                continue
            # Of the auto traits, whether a type can cross or be shared between threads.
            if impl.get("is_synthetic") and (trait or {}).get("path") not in ("Send", "Sync"):
                continue
            generics = render_generics(impl.get("generics", {}))
            where = render_where(impl.get("generics", {}))
            if trait is not None:
                negative = "!" if impl.get("is_negative") else ""
                self.lines.add(
                    f"impl{generics} {negative}{trait['path']}{render_args(trait.get('args'))} for {render_type(impl['for'])}{where}"
                )
                continue
            # Methods are named with the module path and the impl's own type, so that
            # `impl Builder<A> { fn f }` and `impl Builder<B> { fn f }` are two lines.
            for_type = impl["for"].get("resolved_path", {})
            owner = path + render_args(for_type.get("args"))
            for member_id in impl["items"]:
                member = self.item(member_id)
                if member and member.get("visibility") == "public":
                    self.member(member, owner)


def main():
    doc = json.load(open(sys.argv[1]))
    root = doc["index"][str(doc["root"])]
    lister = Lister(doc)
    lister.lines.add(f"crate {root['name']}")
    lister.module(root["inner"]["module"], root["name"])
    for line in sorted(lister.lines):
        print(line)


if __name__ == "__main__":
    main()
