use tool_sdk::tool;

/// Books a room.
#[tool(compensate = cancel)]
fn book_room(hotel: String, nights: u8) -> String {
    format!("{hotel}-{nights}")
}

/// Takes each argument on its own, as a tool does: an action takes them as one value.
fn cancel(hotel: String, nights: u8, booking: String) {
    let _ = (hotel, nights, booking);
}

fn main() {}
