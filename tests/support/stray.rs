//! A type whose hand-written `Serialize` strays from its schema: what the registry's output
//! check, in debug builds, must catch.

use schemars::JsonSchema;
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

/// A reading whose schema says `celsius` is a number, which its `Serialize` writes as a
/// string (`"19 °C"`).
#[derive(Debug, JsonSchema)]
pub struct StrayReading {
    /// Degrees Celsius.
    pub celsius: f64,
}

impl Serialize for StrayReading {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut reading = serializer.serialize_struct("StrayReading", 1)?;
        reading.serialize_field("celsius", &format!("{} °C", self.celsius))?;
        reading.end()
    }
}
