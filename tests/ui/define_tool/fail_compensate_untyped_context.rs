use tool_sdk::define_tool;

fn main() {
    let _tool = define_tool!(
        /// Books a room.
        #[tool(name = "book_room", compensate = |_args, booking: String, call| {
            let _ = (booking, call);
        })]
        |hotel: String| format!("{hotel}-1")
    );
}
