//! What the lexical index reads of a definition.

use serde_json::Value;

use crate::define::ToolDefinition;

/// A piece of a definition's text, by where it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Part {
    Name,
    Description,
    /// A parameter's name, description or allowed value.
    Parameter,
}

/// Calls `visit` with every text the index reads, in a fixed order: the same definition always
/// gives the same calls, and a change to any of them changes them.
pub(crate) fn visit_indexed(definition: &ToolDefinition, mut visit: impl FnMut(Part, &str)) {
    visit(Part::Name, &definition.name);
    visit(Part::Description, &definition.description);
    let Some(properties) = definition
        .parameters
        .get("properties")
        .and_then(Value::as_object)
    else {
        return;
    };
    for (name, property) in properties {
        visit(Part::Parameter, name);
        if let Some(description) = property.get("description").and_then(Value::as_str) {
            visit(Part::Parameter, description);
        }
        if let Some(values) = property.get("enum").and_then(Value::as_array) {
            for value in values.iter().filter_map(Value::as_str) {
                visit(Part::Parameter, value);
            }
        }
    }
}

/// The searchable text of a definition, in two fields: its name (twice, as names are dense)
/// and description; then its parameters' names, descriptions and allowed values, which say
/// less about what the tool is for.
pub(crate) fn document_fields(definition: &ToolDefinition) -> (String, String) {
    let (mut main, mut parameters) = (String::new(), String::new());
    visit_indexed(definition, |part, text| {
        let field = match part {
            Part::Name => {
                main.push_str(text);
                main.push(' ');
                &mut main
            }
            Part::Description => &mut main,
            Part::Parameter => &mut parameters,
        };
        field.push_str(text);
        field.push('\n');
    });
    (main, parameters)
}

/// The text the fallback compares with a query: the name and description.
pub(crate) fn summary(definition: &ToolDefinition) -> String {
    format!("{} {}", definition.name, definition.description)
}
