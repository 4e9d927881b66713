//! Tools defined at run time from a JSON Schema and a closure (MCP tools, catalogues, plugins).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use crate::define::arguments::{decode_object, json_type, with_article};
use tokio_util::sync::CancellationToken;

use crate::define::{
    FromToolContext, IntoToolOutput, Progress, Tool, ToolContext, ToolDefinition, ToolError,
    ToolFuture, ToolOptions, ToolResult,
};
use crate::register::{validate_name, RegistryError};

mod expected;

type Handler = dyn Fn(Value, CallScope) -> Pin<Box<dyn Future<Output = ToolResult> + Send + 'static>>
    + Send
    + Sync;

/// What a call's context lends a handler that outlives the borrow: its progress and its
/// cancellation, owned.
#[cfg_attr(not(feature = "mcp"), allow(dead_code))]
pub(crate) struct CallScope {
    pub(crate) progress: Progress,
    pub(crate) cancellation: Option<CancellationToken>,
}

/// A tool whose schema is only known at run time: its arguments are validated against the JSON
/// Schema it was built with, then handed to an `async` closure as a [`serde_json::Value`].
///
/// # Examples
///
/// ```
/// use serde_json::{json, Value};
/// use tool_sdk::{register::DynamicTool, ToolRegistry};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let schema = json!({
///     "type": "object",
///     "properties": { "n": { "type": "integer", "minimum": 0 } },
///     "required": ["n"]
/// });
/// let factorial = DynamicTool::new("factorial", "n!", schema, |args: Value| async move {
///     let n = args["n"].as_u64().unwrap_or(0);
///     (1..=n).product::<u64>().to_string()
/// })
/// .unwrap();
///
/// let mut registry = ToolRegistry::new();
/// registry.register(factorial).unwrap();
/// assert_eq!(registry.call("factorial", r#"{"n": 5}"#).await.unwrap().content(), "120");
/// let error = registry.call("factorial", r#"{"n": -1}"#).await.unwrap_err();
/// assert!(error.to_string().contains("/n"));
/// # }
/// ```
pub struct DynamicTool {
    definition: ToolDefinition,
    validator: jsonschema::Validator,
    handler: Arc<Handler>,
}

impl DynamicTool {
    /// A tool named `name` whose arguments follow `parameters` and whose calls run `handler`.
    ///
    /// Refused when the name breaks the provider rule, or when `parameters` is not a valid JSON
    /// Schema (2020-12) of an object; the error names the tool, the JSON pointer into
    /// `parameters` and the bad value (`"type": "String"` at `/properties/source/type`).
    pub fn new<F, Fut, R>(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
        handler: F,
    ) -> Result<Self, RegistryError>
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolOutput + 'static,
    {
        Self::scoped(name, description, parameters, move |arguments, _scope| {
            handler(arguments)
        })
    }

    /// [`new`](Self::new), the handler also given the call's [`CallScope`].
    pub(crate) fn scoped<F, Fut, R>(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
        handler: F,
    ) -> Result<Self, RegistryError>
    where
        F: Fn(Value, CallScope) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolOutput + 'static,
    {
        let name = name.into();
        validate_name(&name)?;
        let validator = compile_schema(&name, &parameters)?;
        let tool_name: Arc<str> = Arc::from(name.as_str());
        let handler: Arc<Handler> = Arc::new(move |arguments, scope| {
            let future = handler(arguments, scope);
            let tool_name = Arc::clone(&tool_name);
            Box::pin(async move { future.await.into_tool_output(&tool_name) })
        });
        Ok(Self {
            definition: ToolDefinition::new(name, description, parameters),
            validator,
            handler,
        })
    }

    /// The same tool with other options (timeout, return-direct, ...).
    pub fn with_options(mut self, options: ToolOptions) -> Self {
        self.definition.options = options;
        self
    }

    /// The same tool declaring the JSON Schema of its output
    /// ([`ToolDefinition::output_schema`]): an MCP server's `outputSchema`, say.
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.definition.output_schema = Some(schema);
        self
    }

    /// Checks arguments against the schema without running the tool.
    pub fn validate(&self, arguments: &str) -> Result<Value, ToolError> {
        let tool = self.definition.name.as_str();
        let value = decode_object(tool, arguments)?;
        let problem = self
            .validator
            .iter_errors(&value)
            .next()
            .map(|error| Box::new(expected::problem(&error)));
        match problem {
            None => Ok(value),
            Some(problem) => Err(ToolError::InvalidArguments {
                tool: tool.to_owned(),
                problem,
            }),
        }
    }
}

impl Tool for DynamicTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn check_arguments(&self, arguments: &str) -> Result<(), ToolError> {
        self.validate(arguments).map(|_| ())
    }

    fn call<'a>(&'a self, arguments: &'a str, context: ToolContext<'a>) -> ToolFuture<'a> {
        match self.validate(arguments) {
            Ok(value) => {
                let scope = CallScope {
                    // Never fails: taking progress out of a context cannot.
                    progress: Progress::from_tool_context(&context)
                        .unwrap_or_else(|_| Progress::ignored()),
                    cancellation: context.cancellation().cloned(),
                };
                ToolFuture::boxed((self.handler)(value, scope))
            }
            Err(error) => ToolFuture::ready(Err(error)),
        }
    }
}

impl fmt::Debug for DynamicTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicTool")
            .field("definition", &self.definition)
            .finish_non_exhaustive()
    }
}

fn compile_schema(tool: &str, parameters: &Value) -> Result<jsonschema::Validator, RegistryError> {
    let invalid = |pointer: &str, message: String| RegistryError::InvalidSchema {
        tool: tool.to_owned(),
        pointer: pointer.to_owned(),
        message,
    };
    let Some(object) = parameters.as_object() else {
        return Err(invalid(
            "",
            format!(
                "expected an object schema, found {}",
                with_article(json_type(parameters))
            ),
        ));
    };
    match object.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        None if object.contains_key("properties") => {}
        _ => {
            return Err(invalid(
                "/type",
                "the parameters schema must have `\"type\": \"object\"`".into(),
            ))
        }
    }
    crate::define::check_json_schema(parameters)
        .map_err(|problem| invalid(&problem.pointer, problem.message))?;
    // What the meta-schema cannot catch (a `$ref` that resolves nowhere, a bad regular
    // expression) is found while compiling; its pointer is into the schema too.
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(parameters)
        .map_err(|error| invalid(&error.instance_path().to_string(), error.to_string()))
}
