use tool_sdk::tools;

struct Counter {
    value: i64,
}

#[tools]
impl Counter {
    /// Increments the counter.
    #[tool]
    fn increment(&mut self, by: i64) -> i64 {
        self.value += by;
        self.value
    }
}

fn main() {}
