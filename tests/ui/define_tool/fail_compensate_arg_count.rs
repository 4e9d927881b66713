use tool_sdk::define_tool;

fn main() {
    let _tool = define_tool!(
        /// Books a room.
        #[tool(
            name = "book_room",
            compensate = |booking: String| println!("cancel {booking}")
        )]
        |hotel: String, nights: u8| format!("{hotel}-{nights}")
    );
}
