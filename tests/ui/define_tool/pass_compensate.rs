#![deny(warnings)]

use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tool_sdk::{define::{CallId, State}, define_tool, ToolRegistry};

#[derive(Serialize, Deserialize)]
struct Booking {
    id: String,
}

// An inline tool's arguments struct has no name outside the macro: a function given by path
// takes it through a type parameter.
fn cancel<Args>(_args: Args, booking: Booking) {
    let _ = booking.id;
}

async fn cancel_later<Args>(_args: Args, booking: String, call: CallId) -> Result<(), String> {
    let _ = (booking, call);
    Ok(())
}

fn main() {
    let cancelled = Arc::new(Mutex::new(Vec::<String>::new()));
    let cancelled_by_tool = Arc::clone(&cancelled);
    // A sync closure capturing state: the arguments as one value (whose type it is told), the
    // output decoded into the second parameter's type.
    let book = define_tool!(
        /// Books a room.
        #[tool(
            name = "book_room",
            compensate = move |args, booking: Booking| {
                if let Ok(mut cancelled) = cancelled_by_tool.lock() {
                    cancelled.push(format!("{} at {} ({} nights)", booking.id, args.hotel, args.nights));
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
    // A path to an `async fn` returning a `Result` and taking a context parameter; the tool is
    // async and returns `String`.
    let hold = define_tool!(
        /// Holds a room.
        #[tool(name = "hold_room", compensate = cancel_later)]
        async move |hotel: String| format!("hold-{hotel}")
    );
    // An `async` closure borrowing its captures in its future (so `AsyncFn`, not `Fn`); a
    // borrowed parameter reaches the action decoded (`String` for `&str`).
    let released = Arc::new(Mutex::new(Vec::<String>::new()));
    let hold_async = define_tool!(
        /// Holds a room.
        #[tool(
            name = "hold_room_async",
            compensate = async move |args, hold: String| -> Result<(), String> {
                let hotel: &String = &args.hotel;
                released.lock().map_err(|_| "poisoned".to_owned())?.push(format!("{hold} at {hotel}"));
                Ok(())
            }
        )]
        |hotel: &str| format!("hold-{hotel}")
    );
    // A closure returning a future, with context parameters after the output.
    let hold_block = define_tool!(
        /// Holds a room.
        #[tool(
            name = "hold_room_block",
            compensate = |args, hold: String, call: CallId, rooms: State<Mutex<u32>>| async move {
                let _ = (call, rooms);
                format!("released {hold} at {}", args.hotel)
            }
        )]
        |hotel: String| format!("hold-{hotel}")
    );
    // Both hooks on one tool; unit output decoded as `()`.
    let wipe = define_tool!(
        /// Wipes a disk.
        #[tool(name = "wipe", confirm = |disk: &String| disk != "scratch", compensate = |_args, (): ()| {})]
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
