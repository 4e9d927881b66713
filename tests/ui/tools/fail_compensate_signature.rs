use tool_sdk::tools;

struct Hotel;

#[tools]
impl Hotel {
    /// Books a room.
    #[tool(compensate = cancel)]
    fn book_room(&self, hotel: String, nights: u8) -> String {
        format!("{hotel}-{nights}")
    }

    /// Takes `nights` as a string.
    fn cancel(&self, hotel: String, nights: String, booking: String) {
        let _ = (hotel, nights, booking);
    }
}

fn main() {}
