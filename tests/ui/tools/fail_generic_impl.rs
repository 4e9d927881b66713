use tool_sdk::tools;

struct Weather<T>(T);

#[tools]
impl<T: Send + Sync + 'static> Weather<T> {
    /// Gets the weather.
    #[tool]
    fn get_weather(&self, city: String) -> String {
        city
    }
}

fn main() {}
