#![deny(warnings)]

use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tool_sdk::{define::{CallId, State}, tool, ToolRegistry};

#[derive(Serialize, Deserialize)]
struct Booking {
    id: String,
}

/// Books a flight.
#[tool(compensate = cancel_flight)]
fn book_flight(from: String, #[arg(rename = "destination")] to: &str) -> Booking {
    Booking {
        id: format!("{from}-{to}"),
    }
}

/// The arguments as one typed value, read by destructuring; the output; no context.
fn cancel_flight(BookFlightArgs { from, to }: BookFlightArgs, booking: Booking) {
    let _ = (from, to, booking.id);
}

/// Books a hotel.
#[tool(compensate = cancel_hotel)]
async fn book_hotel(city: String, nights: u8) -> Result<String, String> {
    Ok(format!("{city}-{nights}"))
}

/// An `async` action taking context parameters after the output.
async fn cancel_hotel(
    args: BookHotelArgs,
    booking: String,
    call: CallId,
    hotels: State<Mutex<Vec<String>>>,
) -> Result<(), String> {
    let _ = (args.city, args.nights, call);
    let mut hotels = hotels.0.lock().map_err(|_| "poisoned".to_owned())?;
    hotels.retain(|held| *held != booking);
    Ok(())
}

/// Rents a car.
#[tool(compensate = |args: RentCarArgs, (): (), call: CallId| { let _ = (args.city, call); })]
fn rent_car(city: String) {
    let _ = city;
}

fn main() {
    let mut registry = ToolRegistry::new();
    let _ = registry.register(BookFlightTool);
    let _ = registry.register(BookHotelTool);
    let _ = registry.register(RentCarTool);
}
