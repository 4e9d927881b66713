use tool_sdk::tool;

/// Books a room.
#[tool(compensate = cancel)]
fn book_room(hotel: String, nights: u8) -> String {
    format!("{hotel}-{nights}")
}

/// Takes the booking only: the tool's arguments are missing.
fn cancel(booking: String) {
    let _ = booking;
}

fn main() {}
