use tool_sdk::tool;

/// Books a room.
#[tool(compensate = |args: BookRoomArgs, booking: String, hotel: Hotel| { let _ = (args, booking, hotel); })]
fn book_room(hotel: String) -> String {
    format!("{hotel}-1")
}

/// Not something the call's context can give.
struct Hotel;

fn main() {}
