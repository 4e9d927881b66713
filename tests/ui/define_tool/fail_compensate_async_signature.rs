use std::sync::{Arc, Mutex};

use tool_sdk::define_tool;

fn main() {
    let cancelled = Arc::new(Mutex::new(Vec::<String>::new()));
    let _tool = define_tool!(
        /// Books a room.
        #[tool(
            name = "book_room",
            compensate = async move |hotel: String, booking: String| {
                cancelled.lock().unwrap().push(format!("{booking} at {hotel}"));
            }
        )]
        |hotel: String, nights: u8| format!("{hotel}-{nights}")
    );
}
