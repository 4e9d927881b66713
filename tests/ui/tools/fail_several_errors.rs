use tool_sdk::tools;

struct Counter {
    value: i64,
}

#[tools]
impl Counter {
    /// Consumes the counter.
    #[tool]
    fn take(self) -> i64 {
        self.value
    }

    /// Increments the counter.
    #[tool(name = "take")]
    fn increment(&mut self, (by, _): (i64, i64)) -> i64 {
        self.value += by;
        self.value
    }

    #[tool(colour = "red")]
    fn read(&self) -> i64 {
        self.value
    }
}

fn main() {}
