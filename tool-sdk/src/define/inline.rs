//! Tools defined inline with `define_tool!`: a value holding the adapters the macro wrote around
//! the user's closure.

use std::fmt;

use crate::define::{Tool, ToolContext, ToolDefinition, ToolError, ToolFuture, ToolOutput};

type ConfirmFn = dyn Fn(&str) -> bool + Send + Sync;
type CheckFn = fn(&str) -> Result<(), ToolError>;
type CompensateFn =
    dyn for<'a> Fn(&'a str, &'a ToolOutput, ToolContext<'a>) -> ToolFuture<'a> + Send + Sync;

/// A tool defined at the call site with [`define_tool!`](crate::define_tool), capturing its
/// environment. Register it like any other tool.
///
/// # Examples
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use tool_sdk::{define_tool, ToolRegistry};
///
/// let phase = Arc::new(Mutex::new(String::from("planning")));
/// let set_phase = define_tool!(
///     /// Sets the current phase of the agent.
///     #[tool(name = "set_current_phase")]
///     move |
///         /// The phase to move to.
///         phase_name: String,
///     | {
///         *phase.lock().unwrap() = phase_name.clone();
///         format!("Phase set to {phase_name}")
///     }
/// );
///
/// let mut registry = ToolRegistry::new();
/// registry.register(set_phase).unwrap();
/// ```
pub struct InlineTool<C> {
    definition: &'static ToolDefinition,
    call: C,
    confirm: Option<Box<ConfirmFn>>,
    compensate: Option<Box<CompensateFn>>,
    check: Option<CheckFn>,
}

/// The tool `define_tool!` wrote around `call`, without hooks (through `__private`).
pub fn inline_tool<C>(definition: &'static ToolDefinition, call: C) -> InlineTool<C>
where
    C: for<'a> Fn(&'a str, ToolContext<'a>) -> ToolFuture<'a> + Send + Sync,
{
    InlineTool {
        definition,
        call,
        confirm: None,
        compensate: None,
        check: None,
    }
}

/// `tool` checking its arguments with `check` before anyone is asked about a call, as its
/// call decodes them (through `__private`).
pub fn inline_with_check<C>(
    mut tool: InlineTool<C>,
    check: fn(&str) -> Result<(), ToolError>,
) -> InlineTool<C> {
    tool.check = Some(check);
    tool
}

/// `tool` asking for a person's decision when `confirm` says so (through `__private`).
pub fn inline_with_confirm<C>(
    mut tool: InlineTool<C>,
    confirm: impl Fn(&str) -> bool + Send + Sync + 'static,
) -> InlineTool<C> {
    tool.confirm = Some(Box::new(confirm));
    tool
}

/// `tool` undone by `compensate` when a later step fails (through `__private`).
pub fn inline_with_compensate<C, U>(mut tool: InlineTool<C>, compensate: U) -> InlineTool<C>
where
    U: for<'a> Fn(&'a str, &'a ToolOutput, ToolContext<'a>) -> ToolFuture<'a>
        + Send
        + Sync
        + 'static,
{
    tool.compensate = Some(Box::new(compensate));
    tool
}

impl<C> Tool for InlineTool<C>
where
    C: for<'a> Fn(&'a str, ToolContext<'a>) -> ToolFuture<'a> + Send + Sync,
{
    fn definition(&self) -> &ToolDefinition {
        self.definition
    }

    #[inline]
    fn call<'a>(&'a self, arguments: &'a str, context: ToolContext<'a>) -> ToolFuture<'a> {
        (self.call)(arguments, context)
    }

    fn needs_confirmation(&self, arguments: &str) -> bool {
        match &self.confirm {
            Some(predicate) => predicate(arguments),
            None => self.definition.options.confirm == crate::define::Confirm::Always,
        }
    }

    fn check_arguments(&self, arguments: &str) -> Result<(), ToolError> {
        self.check.map_or(Ok(()), |check| check(arguments))
    }

    fn compensate<'a>(
        &'a self,
        arguments: &'a str,
        output: &'a ToolOutput,
        context: ToolContext<'a>,
    ) -> Option<ToolFuture<'a>> {
        self.compensate
            .as_ref()
            .map(|compensate| compensate(arguments, output, context))
    }
}

impl<C> fmt::Debug for InlineTool<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InlineTool")
            .field("definition", self.definition)
            .finish_non_exhaustive()
    }
}
