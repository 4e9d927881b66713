//! A loop set up in one call (`ToolLoop::from_env_or`) says why it could not be, as a
//! `SetupError` matched by variant: the script first, then the tools, before the environment
//! is read.

use tool_sdk::model::ModelError;
use tool_sdk::register::RegistryError;
use tool_sdk::run::SetupError;
use tool_sdk::{tool, ToolLoop};

/// Adds two numbers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[test]
fn a_script_without_a_reply_is_a_model_error_of_the_setting_up() {
    let Err(error) = ToolLoop::from_env_or("", (AddTool,)) else {
        panic!("a loop was set up over an empty script");
    };
    let SetupError::Model(model) = &error else {
        panic!("expected SetupError::Model, got {error:?}");
    };
    assert!(
        matches!(model, ModelError::InvalidScript { .. }),
        "{model:?}"
    );
    assert!(model.is_config(), "{model:?}");
}

#[test]
fn two_tools_of_one_name_are_a_tools_error() {
    let Err(error) = ToolLoop::from_env_or("2 + 3 = 5", (AddTool, AddTool)) else {
        panic!("a loop was set up with two tools named `add`");
    };
    assert!(
        matches!(&error, SetupError::Tools(RegistryError::DuplicateName(name)) if name == "add"),
        "{error:?}"
    );
}
