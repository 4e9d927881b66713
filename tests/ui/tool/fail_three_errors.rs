use tool_sdk::tool;

/// Scales a point: three mistakes in one signature, each reported at its own tokens.
#[tool]
unsafe fn scale<T>((x, y): (f64, f64)) -> f64 {
    x * y
}

fn main() {}
