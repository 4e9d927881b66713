//! `#[tools]` on an impl block: methods as tools sharing one instance.

use std::sync::{Arc, Mutex};

use tool_sdk::{tools, ToolRegistry};

#[derive(Default)]
struct Bookings {
    seats: Mutex<Vec<String>>,
}

#[tools]
impl Bookings {
    /// Books a seat for a passenger and returns the booking number.
    #[tool]
    fn book(&self, passenger: String) -> usize {
        let mut seats = self.seats.lock().unwrap();
        seats.push(passenger);
        seats.len()
    }

    /// Lists the passengers booked so far.
    #[tool(name = "list_passengers")]
    async fn list(&self) -> Vec<String> {
        self.seats.lock().unwrap().clone()
    }

    /// Says how many seats a plane has.
    #[tool]
    fn capacity(kind: Option<<Self as HasKind>::Kind>) -> u32 {
        match kind.unwrap_or_default().as_str() {
            "small" => 50,
            _ => 180,
        }
    }

    /// Not a tool: an ordinary method stays as it is.
    fn count(&self) -> usize {
        self.seats.lock().unwrap().len()
    }
}

trait HasKind {
    type Kind;
}

impl HasKind for Bookings {
    type Kind = String;
}

#[tokio::test]
async fn methods_share_one_instance() {
    let bookings = Arc::new(Bookings::default());
    let mut registry = ToolRegistry::new();
    registry.register_set(Arc::clone(&bookings)).unwrap();
    assert_eq!(
        registry.names().collect::<Vec<_>>(),
        ["book", "list_passengers", "capacity"]
    );

    assert_eq!(
        registry
            .call("book", r#"{"passenger":"Ana"}"#)
            .await
            .unwrap()
            .content(),
        "1"
    );
    assert_eq!(
        registry
            .call("book", r#"{"passenger":"Ben"}"#)
            .await
            .unwrap()
            .content(),
        "2"
    );
    assert_eq!(
        registry
            .call("list_passengers", "{}")
            .await
            .unwrap()
            .content(),
        r#"["Ana","Ben"]"#
    );
    assert_eq!(
        registry
            .call("capacity", r#"{"kind":"small"}"#)
            .await
            .unwrap()
            .content(),
        "50"
    );
    assert_eq!(
        bookings.count(),
        2,
        "the application sees what the tools did"
    );
}

#[test]
fn a_collision_in_the_middle_of_a_set_adds_none_of_it() {
    // `list_passengers` is the second of the set's three tools: `book`, before it, must not
    // be added either.
    let mut registry = ToolRegistry::new();
    let taken = tool_sdk::register::DynamicTool::new(
        "list_passengers",
        "Taken already.",
        serde_json::json!({"type": "object"}),
        |_| async { "" },
    )
    .unwrap();
    registry.register(taken).unwrap();
    let set = Arc::new(Bookings::default());
    let order: Vec<String> = tool_sdk::define::ToolSet::tools(Arc::clone(&set))
        .iter()
        .map(|tool| tool.definition().name.clone())
        .collect();
    assert_eq!(order, ["book", "list_passengers", "capacity"]);
    let error = registry.register_set(set).unwrap_err();
    assert_eq!(
        error,
        tool_sdk::register::RegistryError::DuplicateName("list_passengers".into())
    );
    assert_eq!(registry.names().collect::<Vec<_>>(), ["list_passengers"]);
    assert!(!registry.contains("book"));
}

#[test]
fn registering_a_set_twice_adds_nothing_the_second_time() {
    let mut registry = ToolRegistry::new();
    registry
        .register_set(Arc::new(Bookings::default()))
        .unwrap();
    let error = registry
        .register_set(Arc::new(Bookings::default()))
        .unwrap_err();
    assert_eq!(
        error,
        tool_sdk::register::RegistryError::DuplicateName("book".into())
    );
    assert_eq!(registry.len(), 3);
}

/// A travel desk whose bookings are rolled back by methods of the same impl block.
#[derive(Default)]
struct Desk {
    held: Mutex<Vec<String>>,
}

#[tools]
impl Desk {
    /// Holds a room.
    #[tool(compensate = release_room)]
    async fn hold_room(&self, city: String, nights: u8) -> String {
        let booking = format!("{city}-{nights}");
        self.held.lock().unwrap().push(booking.clone());
        booking
    }

    /// Holds a car.
    #[tool(compensate = release_car)]
    fn hold_car(&self, city: String) -> String {
        let booking = format!("car-{city}");
        self.held.lock().unwrap().push(booking.clone());
        booking
    }

    /// Gets the arguments as one value (the struct named after the tool's method), the output,
    /// and a context parameter.
    async fn release_room(
        &self,
        args: HoldRoomArgs,
        booking: String,
        call: tool_sdk::define::CallId,
    ) -> Result<(), String> {
        assert_eq!(args.nights, 2);
        assert_eq!(call.0.as_deref(), Some("c1"));
        self.held.lock().unwrap().retain(|b| *b != booking);
        Ok(())
    }

    /// A synchronous action without `self`, taking the state from the context.
    fn release_car(
        HoldCarArgs { city }: HoldCarArgs,
        booking: String,
        desk: tool_sdk::define::State<Desk>,
    ) {
        assert_eq!(booking, format!("car-{city}"));
        desk.0.held.lock().unwrap().retain(|b| *b != booking);
    }
}

#[tokio::test]
async fn sibling_methods_compensate_with_the_arguments_as_one_value() {
    use tool_sdk::{define::SharedState, ToolContext};

    let desk = Arc::new(Desk::default());
    let mut state = SharedState::new();
    state.insert_arc(Arc::clone(&desk));
    let mut registry = ToolRegistry::new();
    registry.register_set(Arc::clone(&desk)).unwrap();
    let room = registry.get("hold_room").unwrap();
    let car = registry.get("hold_car").unwrap();

    let room_args = r#"{"city":"Oslo","nights":2}"#;
    let room_output = room.call(room_args, ToolContext::new()).await.unwrap();
    let car_args = r#"{"city":"Oslo"}"#;
    let car_output = car.call(car_args, ToolContext::new()).await.unwrap();
    assert_eq!(desk.held.lock().unwrap().len(), 2);

    let context = ToolContext::new().with_call_id("c1").with_state(&state);
    room.compensate(room_args, &room_output, context)
        .unwrap()
        .await
        .unwrap();
    car.compensate(car_args, &car_output, context)
        .unwrap()
        .await
        .unwrap();
    assert!(desk.held.lock().unwrap().is_empty());
}
