//! Tool options as MCP tool annotations, and back.
//!
//! MCP's hints default to the cautious side: a tool that says nothing is taken to be
//! writing (`readOnlyHint: false`) and destructive (`destructiveHint: true`). So the server
//! always states `readOnlyHint`, and states `destructiveHint` whenever it knows something.

use rmcp::model::ToolAnnotations;

use crate::define::{Confirm, ToolOptions};

/// The annotations a tool with these options is listed with.
///
/// - `readOnlyHint` is [`ToolOptions::read_only`].
/// - `destructiveHint` (only for a tool that is not read-only, where MCP gives it meaning):
///   [`ToolOptions::destructive`] when set; otherwise `true` for a tool that waits for a
///   person's decision ([`ToolOptions::confirm`]), since its author judged its calls risky;
///   otherwise left out, which MCP reads as `true`. Compensation says nothing here: a booking
///   that can be cancelled is still a change.
pub(crate) fn annotations_for(options: &ToolOptions) -> ToolAnnotations {
    let annotations = ToolAnnotations::new().read_only(options.read_only);
    if options.read_only {
        return annotations;
    }
    let destructive = options
        .destructive
        .or((options.confirm != Confirm::Never).then_some(true));
    match destructive {
        Some(destructive) => annotations.destructive(destructive),
        None => annotations,
    }
}

/// The options a tool listed with these annotations gets: its hints, nothing enforced.
pub(crate) fn options_from(annotations: Option<&ToolAnnotations>) -> ToolOptions {
    let Some(annotations) = annotations else {
        return ToolOptions::new();
    };
    let mut options = ToolOptions::new().with_read_only(annotations.read_only_hint == Some(true));
    if let Some(destructive) = annotations.destructive_hint {
        options = options.with_destructive(destructive);
    }
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_states_no_destructive_hint() {
        let options = ToolOptions::new()
            .with_read_only(true)
            .with_destructive(true);
        let annotations = annotations_for(&options);
        assert_eq!(annotations.read_only_hint, Some(true));
        assert_eq!(annotations.destructive_hint, None);
    }

    #[test]
    fn explicit_destructive_wins_over_confirm() {
        let options = ToolOptions::new()
            .with_confirm(Confirm::Always)
            .with_destructive(false);
        assert_eq!(annotations_for(&options).destructive_hint, Some(false));
    }

    #[test]
    fn confirm_implies_destructive() {
        for confirm in [Confirm::Always, Confirm::WhenPredicate] {
            let annotations = annotations_for(&ToolOptions::new().with_confirm(confirm));
            assert_eq!(annotations.read_only_hint, Some(false));
            assert_eq!(annotations.destructive_hint, Some(true));
        }
    }

    #[test]
    fn plain_and_compensable_tools_leave_destructive_out() {
        for options in [
            ToolOptions::new(),
            ToolOptions::new().with_compensable(true),
        ] {
            let annotations = annotations_for(&options);
            assert_eq!(annotations.read_only_hint, Some(false));
            assert_eq!(annotations.destructive_hint, None);
        }
    }

    #[test]
    fn hints_come_back_as_options() {
        let annotations = ToolAnnotations::new().read_only(false).destructive(true);
        let options = options_from(Some(&annotations));
        assert!(!options.read_only);
        assert_eq!(options.destructive, Some(true));
        assert_eq!(options_from(None), ToolOptions::new());
    }
}
