//! Memory per registered tool: bytes allocated and still live after registering, counted by
//! dhat's allocator (which is why this is its own binary, kept away from the timed benches).
//!
//! - 1,000 dynamic tools (definition, compiled JSON Schema validator, handler, index slot),
//!   each with a three-parameter schema.
//! - 10 `#[tool]` functions (their definition is a static built once; the registry holds an
//!   index slot and a pointer).
//!
//! Run with `cargo bench -p tool-sdk --bench memory`.

use serde_json::json;
use tool_sdk::{register::DynamicTool, tool, ToolRegistry};

#[global_allocator]
static ALLOCATOR: dhat::Alloc = dhat::Alloc;

macro_rules! weather_tools {
    ($($name:ident => $tool:ident),* $(,)?) => {
        $(
            /// Gets the weather forecast for a city.
            #[tool]
            fn $name(
                /// The city, such as Lisbon.
                city: String,
                /// Days ahead, 1 to 7.
                days: u8,
                /// `metric` or `imperial`.
                units: Option<String>,
            ) -> String {
                format!("{city} {days} {units:?}")
            }
        )*

        fn register_static(registry: &mut ToolRegistry) {
            $( registry.register($tool).expect("a unique name"); )*
        }
    };
}

weather_tools!(
    forecast_0 => Forecast0Tool, forecast_1 => Forecast1Tool, forecast_2 => Forecast2Tool,
    forecast_3 => Forecast3Tool, forecast_4 => Forecast4Tool, forecast_5 => Forecast5Tool,
    forecast_6 => Forecast6Tool, forecast_7 => Forecast7Tool, forecast_8 => Forecast8Tool,
    forecast_9 => Forecast9Tool,
);

fn live_bytes() -> i64 {
    i64::try_from(dhat::HeapStats::get().curr_bytes).unwrap_or(i64::MAX)
}

fn main() {
    let _profiler = dhat::Profiler::builder().testing().build();

    let before = live_bytes();
    let mut registry = ToolRegistry::new();
    for n in 0..1_000 {
        let schema = json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "The city, such as Lisbon."},
                "days": {"type": "integer", "minimum": 1, "maximum": 7, "description": "Days ahead."},
                "units": {"type": "string", "enum": ["metric", "imperial"], "description": "Units."}
            },
            "required": ["city", "days"]
        });
        let tool = DynamicTool::new(
            format!("forecast_{n}"),
            format!("Gets the weather forecast for a city, variant {n}."),
            schema,
            |arguments| async move { arguments.to_string() },
        )
        .expect("a valid tool");
        registry.register(tool).expect("a unique name");
    }
    let dynamic = (live_bytes() - before) / 1_000;
    println!("memory per registered dynamic tool: {dynamic} bytes (1,000 registered)");
    drop(registry);

    let mut registry = ToolRegistry::new();
    let before = live_bytes();
    register_static(&mut registry);
    // Each tool's definition (schema included) is built on first use and kept for the process.
    for definition in registry.definitions() {
        std::hint::black_box(definition);
    }
    let with_definitions = (live_bytes() - before) / 10;
    println!(
        "memory per registered #[tool] function: {with_definitions} bytes, its cached definition included (10 registered)"
    );
}
