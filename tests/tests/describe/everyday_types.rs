//! The argument types a Rust user writes every day, each offered as a real `#[tool]`, get from
//! `describe::lower` the verdict each provider would give and a schema it takes: nested
//! documented structs, maps, flattened enums, tuples, `serde_json::Value`, a dangling `$ref`,
//! recursion, and deep nesting.

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tool_sdk::describe::{lower, Dialect, LoweringError};
use tool_sdk::{tool, Tool};

/// Lowers the tool's schema to `dialect`.
fn lowered(tool: &impl Tool, dialect: Dialect) -> Result<Value, LoweringError> {
    let definition = tool.definition();
    lower(&definition.name, &definition.parameters, dialect)
}

/// Whether `instance` (arguments the tool decodes) is valid against the lowered `schema`.
fn accepts(schema: &Value, instance: &Value) -> bool {
    jsonschema::validator_for(schema)
        .unwrap_or_else(|e| panic!("not a schema: {e}: {schema}"))
        .is_valid(instance)
}

// 1. A documented field whose type is another struct, inside a struct that is a parameter.

/// A postal address.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub(super) struct Address {
    street: String,
    city: String,
}

/// An order.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub(super) struct Order {
    /// Where to deliver.
    shipping_address: Address,
    quantity: u32,
}

/// Places an order.
#[tool]
fn place_order(order: Order) -> String {
    format!("{} to {}", order.quantity, order.shipping_address.city)
}

#[test]
fn a_documented_struct_field_is_strict_with_its_description() {
    let strict = lowered(&PlaceOrderTool, Dialect::OpenAiStrict).expect("strict takes it");
    let address = strict
        .pointer("/properties/order")
        .and_then(|order| resolve(&strict, order))
        .and_then(|order| order.pointer("/properties/shipping_address").cloned())
        .expect("the address property");
    let address = resolve(&strict, &address).expect("resolves");
    assert_eq!(address["description"], "Where to deliver.", "{strict:#}");
    assert_eq!(address["additionalProperties"], false);
    let order =
        json!({"order": {"shipping_address": {"street": "1 Main", "city": "Oslo"}, "quantity": 2}});
    assert!(accepts(&strict, &order), "{strict:#}");
    for dialect in [Dialect::AnthropicStrict, Dialect::Gemini] {
        let lowered = lowered(&PlaceOrderTool, dialect).expect("taken");
        assert!(
            lowered.to_string().contains("Where to deliver."),
            "{dialect:?}"
        );
    }
}

/// `schema` itself, or what its lone `$ref` points to in `root`.
fn resolve(root: &Value, schema: &Value) -> Option<Value> {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => root
            .pointer(reference.strip_prefix('#')?)
            .cloned()
            .map(|target| {
                let mut merged = target.as_object().cloned().unwrap_or_default();
                for (key, value) in schema.as_object().into_iter().flatten() {
                    if key != "$ref" {
                        merged.insert(key.clone(), value.clone());
                    }
                }
                Value::Object(merged)
            }),
        None => Some(schema.clone()),
    }
}

// 2. Maps.

/// Sets feature flags.
#[tool]
fn set_flags(flags: HashMap<String, bool>, limits: BTreeMap<String, u32>) -> usize {
    flags.len() + limits.len()
}

#[test]
fn a_map_is_refused_where_objects_are_closed_or_open_keys_unsaid_and_kept_elsewhere() {
    // Gemini's `parameters` is the Developer API's `Schema`, which has no
    // `additionalProperties`.
    for dialect in [
        Dialect::OpenAiStrict,
        Dialect::AnthropicStrict,
        Dialect::Gemini,
    ] {
        let refused = lowered(&SetFlagsTool, dialect).expect_err("no strict map");
        assert!(
            matches!(refused, LoweringError::Unsupported { .. }),
            "{dialect:?}: {refused}"
        );
        assert!(
            refused.pointer().starts_with("/properties/"),
            "{dialect:?}: {refused:?}"
        );
    }
    let gemini = lowered(&SetFlagsTool, Dialect::GeminiJsonSchema).expect("JSON Schema maps");
    assert_eq!(
        gemini["properties"]["flags"]["additionalProperties"]["type"], "boolean",
        "{gemini:#}"
    );
}

// 3. A flattened, internally tagged enum beside fields.

/// How to ship.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
#[serde(tag = "method", rename_all = "snake_case")]
pub(super) enum Method {
    /// By post.
    Post { stamps: u32 },
    /// By courier.
    Courier { company: String },
}

/// A shipment.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub(super) struct Shipment {
    reference: String,
    #[serde(flatten)]
    method: Method,
}

/// Ships a parcel.
#[tool]
fn ship(shipment: Shipment) -> String {
    shipment.reference
}

#[test]
fn a_flattened_tagged_enum_lowers_to_a_schema_its_values_satisfy() {
    let post = json!({"shipment": {"reference": "r1", "method": "post", "stamps": 2}});
    let courier = json!({"shipment": {"reference": "r2", "method": "courier", "company": "DHL"}});
    let mixed = json!({"shipment": {"reference": "r3", "method": "post", "company": "DHL"}});
    for dialect in [Dialect::OpenAiStrict, Dialect::AnthropicStrict] {
        let schema = lowered(&ShipTool, dialect).expect("taken");
        assert!(accepts(&schema, &post), "{dialect:?}: {schema:#}");
        assert!(accepts(&schema, &courier), "{dialect:?}: {schema:#}");
        assert!(!accepts(&schema, &mixed), "{dialect:?}: {schema:#}");
    }
}

/// How fast to ship.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
#[serde(tag = "speed", rename_all = "snake_case")]
pub(super) enum Speed {
    Slow { days: u32 },
    Fast { hours: u32 },
}

/// A delivery: two flattened enums beside a field, which schemars says with `allOf`.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub(super) struct Delivery {
    reference: String,
    #[serde(flatten)]
    method: Method,
    #[serde(flatten)]
    speed: Speed,
}

/// Delivers a parcel.
#[tool]
fn deliver(delivery: Delivery) -> String {
    delivery.reference
}

#[test]
fn two_flattened_enums_lower_to_every_combination_of_their_variants() {
    let fast_post = json!({"delivery": {"reference": "r", "method": "post", "stamps": 2, "speed": "fast", "hours": 4}});
    let slow_courier = json!({"delivery": {"reference": "r", "method": "courier", "company": "DHL", "speed": "slow", "days": 3}});
    let mixed = json!({"delivery": {"reference": "r", "method": "post", "stamps": 2, "speed": "fast", "days": 3}});
    for dialect in Dialect::ALL {
        let schema = lowered(&DeliverTool, dialect).expect("taken");
        assert!(accepts(&schema, &fast_post), "{dialect:?}: {schema:#}");
        assert!(accepts(&schema, &slow_courier), "{dialect:?}: {schema:#}");
        if matches!(dialect, Dialect::OpenAiStrict | Dialect::AnthropicStrict) {
            assert!(!accepts(&schema, &mixed), "{dialect:?}: {schema:#}");
            let text = schema.to_string();
            assert!(!text.contains("\"allOf\""), "{dialect:?}: {schema:#}");
        }
    }
}

// 4. Tuples.

/// Draws a path.
#[tool]
fn draw(points: Vec<(f64, f64)>) -> usize {
    points.len()
}

/// Names a place.
#[tool]
fn name_place(place: (String, f64, f64)) -> String {
    place.0
}

#[test]
fn a_tuple_of_one_type_keeps_its_element_type_and_length() {
    for dialect in [Dialect::OpenAiStrict, Dialect::Gemini] {
        let schema = lowered(&DrawTool, dialect).expect("taken");
        let pair = &schema["properties"]["points"]["items"];
        assert_eq!(pair["items"]["type"], "number", "{dialect:?}: {schema:#}");
        assert_eq!(pair["minItems"], 2, "{dialect:?}: {schema:#}");
        assert_eq!(pair["maxItems"], 2, "{dialect:?}: {schema:#}");
    }
}

#[test]
fn a_tuple_of_different_types_is_refused_where_arrays_have_one_item_type() {
    for dialect in [
        Dialect::OpenAiStrict,
        Dialect::AnthropicStrict,
        Dialect::Gemini,
    ] {
        let refused = lowered(&NamePlaceTool, dialect).expect_err("no typed positions");
        assert!(
            matches!(&refused, LoweringError::Unsupported { pointer, .. } if pointer == "/properties/place"),
            "{dialect:?}: {refused}"
        );
    }
    // Gemini's JSON Schema takes `prefixItems`.
    let schema = lowered(&NamePlaceTool, Dialect::GeminiJsonSchema).expect("tuples kept");
    assert_eq!(
        schema["properties"]["place"]["prefixItems"][0]["type"], "string",
        "{schema:#}"
    );
    assert!(accepts(&schema, &json!({"place": ["Oslo", 59.9, 10.7]})));
    assert!(!accepts(&schema, &json!({"place": [59.9, "Oslo", 10.7]})));
}

// 5. A documented `serde_json::Value`.

/// Stores a document.
#[tool]
fn store_document(
    /// Any JSON document.
    document: Value,
) -> String {
    document.to_string()
}

#[test]
fn a_value_of_any_type_is_refused_where_every_schema_needs_a_type() {
    for dialect in [
        Dialect::OpenAiStrict,
        Dialect::AnthropicStrict,
        Dialect::Gemini,
    ] {
        let refused = lowered(&StoreDocumentTool, dialect).expect_err("no type");
        assert!(
            matches!(&refused, LoweringError::Unsupported { pointer, .. } if pointer == "/properties/document"),
            "{dialect:?}: {refused}"
        );
    }
    for dialect in [Dialect::OpenAi, Dialect::Anthropic, Dialect::Mcp] {
        lowered(&StoreDocumentTool, dialect).expect("canonical dialects take any value");
    }
    // Gemini's JSON Schema needs no `type`.
    let schema = lowered(&StoreDocumentTool, Dialect::GeminiJsonSchema).expect("any value");
    assert_eq!(
        schema["properties"]["document"],
        json!({"description": "Any JSON document."}),
        "{schema:#}"
    );
    assert!(accepts(&schema, &json!({"document": {"any": [1, "x"]}})));
}

/// Stores an undocumented value.
#[tool]
fn store_value(value: Value) -> String {
    value.to_string()
}

#[test]
fn an_undocumented_value_is_an_empty_schema_where_no_type_is_needed() {
    let schema = lowered(&StoreValueTool, Dialect::GeminiJsonSchema).expect("any value");
    assert_eq!(schema["properties"]["value"], json!({}), "{schema:#}");
    for dialect in [Dialect::OpenAiStrict, Dialect::Gemini] {
        lowered(&StoreValueTool, dialect).expect_err("a type is needed");
    }
}

// 6. A `$ref` to a missing definition (a hand-written `JsonSchema`).

/// A type whose schema points nowhere.
#[derive(Deserialize, Serialize)]
struct Dangling(String);

impl JsonSchema for Dangling {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Dangling".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "$ref": "#/$defs/Nowhere" })
    }
}

/// Uses a dangling type.
#[tool]
fn dangle(value: Dangling) -> String {
    value.0
}

#[test]
fn a_dangling_ref_is_invalid_in_every_dialect() {
    for dialect in Dialect::ALL {
        let refused = lowered(&DangleTool, dialect).expect_err("nowhere");
        assert!(
            matches!(&refused, LoweringError::Invalid { pointer, .. } if pointer == "/properties/value"),
            "{dialect:?}: {refused}"
        );
    }
}

// 7. Recursive types.

/// A tree.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub(super) struct Tree {
    label: String,
    children: Vec<Tree>,
}

/// A linked list.
#[derive(Deserialize, Serialize, JsonSchema, tool_sdk::describe::Described)]
pub(super) struct List {
    value: i64,
    next: Option<Box<List>>,
}

/// Walks a tree and a list.
#[tool]
fn walk(tree: Tree, list: List) -> usize {
    tree.children.len() + usize::from(list.next.is_some())
}

#[test]
fn recursion_stays_where_refs_stay_and_is_refused_elsewhere() {
    let strict = lowered(&WalkTool, Dialect::OpenAiStrict).expect("OpenAI strict takes recursion");
    let value = json!({"tree": {"label": "a", "children": [{"label": "b", "children": []}]},
                       "list": {"value": 1, "next": {"value": 2, "next": null}}});
    assert!(accepts(&strict, &value), "{strict:#}");
    for dialect in [Dialect::AnthropicStrict, Dialect::Gemini] {
        let refused = lowered(&WalkTool, dialect).expect_err("no recursion");
        assert!(
            matches!(refused, LoweringError::Unsupported { .. }),
            "{dialect:?}: {refused}"
        );
    }
}

// 8. Depth through `$ref`s.

macro_rules! nest {
    ($leaf:ident; $($outer:ident > $inner:ident),*) => {
        #[derive(Deserialize, Serialize, JsonSchema)]
        struct $leaf {
            value: String,
        }
        $(
            #[derive(Deserialize, Serialize, JsonSchema)]
            struct $outer {
                inner: $inner,
            }
        )*
    };
}

nest!(L12; L11 > L12, L10 > L11, L9 > L10, L8 > L9, L7 > L8, L6 > L7, L5 > L6, L4 > L5,
      L3 > L4, L2 > L3, L1 > L2);

/// Takes twelve levels of structs.
#[tool]
fn deep(top: L1) -> String {
    top.inner
        .inner
        .inner
        .inner
        .inner
        .inner
        .inner
        .inner
        .inner
        .inner
        .inner
        .value
}

/// Twelve levels of arrays of strings.
type Twelve = Vec<Vec<Vec<Vec<Vec<Vec<Vec<Vec<Vec<Vec<Vec<Vec<String>>>>>>>>>>>>;

/// Takes twelve levels of arrays.
#[tool]
fn deep_arrays(grid: Twelve) -> usize {
    grid.len()
}

#[test]
fn nesting_through_refs_counts_toward_the_depth_limit() {
    let refused = lowered(&DeepTool, Dialect::OpenAiStrict).expect_err("over ten levels");
    assert!(
        matches!(refused, LoweringError::TooLarge { .. }),
        "{refused:?}"
    );
}

#[test]
fn twelve_levels_of_structs_and_of_arrays_are_refused_alike() {
    let structs = lowered(&DeepTool, Dialect::OpenAiStrict).expect_err("twelve structs");
    let arrays = lowered(&DeepArraysTool, Dialect::OpenAiStrict).expect_err("twelve arrays");
    assert!(
        matches!(structs, LoweringError::TooLarge { .. }),
        "{structs:?}"
    );
    assert!(
        matches!(arrays, LoweringError::TooLarge { .. }),
        "{arrays:?}"
    );
    // Where the limit is passed, both are eleven levels below the parameter.
    assert_eq!(arrays.pointer().matches("/items").count(), 10, "{arrays:?}");
    assert_eq!(
        structs.pointer().matches("/properties/inner").count(),
        10,
        "{structs:?}"
    );
}

#[test]
fn a_schema_that_multiplies_when_inlined_is_refused_quickly() {
    // Each definition uses the next twice: inlined, 2^40 schemas.
    let mut defs = serde_json::Map::new();
    for level in 0..40 {
        let next = json!({"$ref": format!("#/$defs/D{}", level + 1)});
        defs.insert(
            format!("D{level}"),
            json!({"type": "array", "items": {"anyOf": [next, {"type": "array", "items": next}]}}),
        );
    }
    defs.insert("D40".into(), json!({"type": "string"}));
    let schema = json!({
        "type": "object",
        "properties": {"value": {"$ref": "#/$defs/D0", "description": "Deep."}},
        "$defs": defs,
    });
    // Every dialect ends: those that keep references lower each definition once; Gemini, which
    // inlines them, stops at its bound on the schemas visited.
    for dialect in Dialect::ALL {
        let verdict = lower("t", &schema, dialect);
        if dialect == Dialect::Gemini {
            assert!(
                matches!(verdict, Err(LoweringError::TooLarge { .. })),
                "{dialect:?}: {verdict:?}"
            );
        }
    }
}
