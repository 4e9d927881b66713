use tool_sdk::tools;

struct Hotel;

#[tools]
impl Hotel {
    /// Books a room.
    #[tool(compensate = cancel)]
    fn book_room(&self, hotel: String, nights: u8) -> String {
        format!("{hotel}-{nights}")
    }

    /// Takes the arguments as a string rather than as `BookRoomArgs`.
    fn cancel(&self, args: String, booking: String) {
        let _ = (args, booking);
    }
}

fn main() {}
