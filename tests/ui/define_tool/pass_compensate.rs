#![deny(warnings)]

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tool_sdk::{define_tool, ToolRegistry};

#[derive(Serialize, Deserialize)]
struct Booking {
    id: String,
}

fn cancel(hotel: String, nights: u8, booking: Booking) {
    let _ = (hotel, nights, booking.id);
}

async fn cancel_later(hotel: String, booking: String) -> Result<(), String> {
    let _ = (hotel, booking);
    Ok(())
}

fn main() {
    let cancelled = Arc::new(Mutex::new(Vec::<String>::new()));
    let cancelled_by_tool = Arc::clone(&cancelled);
    // A sync closure capturing state; the output decoded into the last parameter's type.
    let book = define_tool!(
        /// Books a room.
        #[tool(
            name = "book_room",
            compensate = move |hotel: String, _nights: u8, booking: Booking| {
                if let Ok(mut cancelled) = cancelled_by_tool.lock() {
                    cancelled.push(format!("{} at {hotel}", booking.id));
                }
            }
        )]
        |hotel: String, nights: u8| Booking { id: format!("{hotel}-{nights}") }
    );
    // A path to a sync fn.
    let book_fn = define_tool!(
        /// Books a room.
        #[tool(name = "book_room_fn", compensate = cancel)]
        |hotel: String, nights: u8| Booking { id: format!("{hotel}-{nights}") }
    );
    // A path to an `async fn` returning a `Result`; the tool is async and returns `String`.
    let hold = define_tool!(
        /// Holds a room.
        #[tool(name = "hold_room", compensate = cancel_later)]
        async move |hotel: String| format!("hold-{hotel}")
    );
    // An `async` closure borrowing its captures in its future (so `AsyncFn`, not `Fn`); a
    // borrowed parameter reaches the action by value, decoded (`String` for `&str`).
    let released = Arc::new(Mutex::new(Vec::<String>::new()));
    let hold_async = define_tool!(
        /// Holds a room.
        #[tool(
            name = "hold_room_async",
            compensate = async move |hotel: String, hold: String| -> Result<(), String> {
                released.lock().map_err(|_| "poisoned".to_owned())?.push(format!("{hold} at {hotel}"));
                Ok(())
            }
        )]
        |hotel: &str| format!("hold-{hotel}")
    );
    let hold_block = define_tool!(
        /// Holds a room.
        #[tool(
            name = "hold_room_block",
            compensate = |hotel, hold: String| async move { format!("released {hold} at {hotel}") }
        )]
        |hotel: String| format!("hold-{hotel}")
    );
    // Both hooks on one tool; unit output decoded as `()`.
    let wipe = define_tool!(
        /// Wipes a disk.
        #[tool(name = "wipe", confirm = |disk: &String| disk != "scratch", compensate = |_disk: String, (): ()| {})]
        |disk: String| {
            let _ = disk;
        }
    );
    let mut registry = ToolRegistry::new();
    let _ = registry.register(book);
    let _ = registry.register(book_fn);
    let _ = registry.register(hold);
    let _ = registry.register(hold_async);
    let _ = registry.register(hold_block);
    let _ = registry.register(wipe);
    drop(cancelled);
}
