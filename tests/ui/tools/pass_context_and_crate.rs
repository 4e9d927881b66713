#![deny(warnings)]

use tool_sdk::{define::{CallId, State}, tools};

struct Limits {
    max: usize,
}

struct Search;

#[tools(crate = ::tool_sdk)]
impl Search {
    /// Searches, within the shared limits.
    #[tool(return_direct, defer = "auto")]
    async fn search(
        &self,
        /// What to look for.
        query: String,
        #[context] limits: State<Limits>,
        #[context] id: CallId,
    ) -> Result<Vec<String>, String> {
        if query.is_empty() {
            return Err(format!("empty query in call {:?}", id.0));
        }
        Ok(vec![query; limits.max])
    }

    /// Compares two searches, `Self` in a parameter's type.
    #[tool]
    fn same(&self, #[arg(default)] other: Option<Self>) -> bool {
        other.is_none()
    }
}

impl<'de> serde::Deserialize<'de> for Search {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <()>::deserialize(deserializer).map(|()| Search)
    }
}

impl schemars::JsonSchema for Search {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Search".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <()>::json_schema(generator)
    }
}

fn main() {}
