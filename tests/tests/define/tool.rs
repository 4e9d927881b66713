//! `define_tool!`: inline tools capturing their environment, with the schemas, checks, results
//! and options of `#[tool]`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::json;
use tool_sdk::{
    define::{CallId, Confirm, Defer, State, ToolError},
    define_tool, tool, Tool, ToolContext, ToolOutput, ToolRegistry,
};

#[derive(Default)]
struct Phase {
    current: String,
    changes: u32,
}

#[tokio::test]
async fn a_stateful_inline_tool_changes_captured_state_across_calls() {
    let phase = Arc::new(Mutex::new(Phase::default()));
    let set_phase = define_tool!(
        /// Sets the current phase of the agent.
        #[tool(name = "set_current_phase")]
        move |
            /// The phase to move to.
            phase_name: String,
        | {
            let mut phase = phase_state(&phase);
            phase.current = phase_name.clone();
            phase.changes += 1;
            format!("Phase set to {phase_name} (change {})", phase.changes)
        }
    );
    let mut registry = ToolRegistry::new();
    registry.register(set_phase).unwrap();
    let first = registry
        .call("set_current_phase", r#"{"phase_name":"build"}"#)
        .await
        .unwrap();
    assert_eq!(first.content(), "Phase set to build (change 1)");
    let second = registry
        .call("set_current_phase", r#"{"phase_name":"ship"}"#)
        .await
        .unwrap();
    assert_eq!(second.content(), "Phase set to ship (change 2)");

    let definition = registry.get("set_current_phase").unwrap().definition();
    assert_eq!(
        definition.description,
        "Sets the current phase of the agent."
    );
    assert_eq!(
        definition.parameters["properties"]["phase_name"]["description"],
        "The phase to move to."
    );
}

fn phase_state(phase: &Mutex<Phase>) -> std::sync::MutexGuard<'_, Phase> {
    phase
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[tokio::test]
async fn async_inline_tools_run_as_futures() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let remember = define_tool!(
        /// Remembers a fact after a short wait.
        #[tool(name = "remember")]
        async move |fact: String| -> Result<usize, String> {
            tokio::time::sleep(Duration::from_millis(1)).await;
            let mut log = log.lock().map_err(|_| "log unavailable".to_string())?;
            log.push(fact);
            Ok(log.len())
        }
    );
    let recall = define_tool!(
        /// Says how long the wait was.
        #[tool(name = "wait")]
        move |millis: u64| async move {
            tokio::time::sleep(Duration::from_millis(millis)).await;
            format!("waited {millis} ms")
        }
    );
    let mut registry = ToolRegistry::new();
    registry.register(remember).unwrap();
    registry.register(recall).unwrap();
    assert_eq!(
        registry
            .call("remember", r#"{"fact":"a"}"#)
            .await
            .unwrap()
            .content(),
        "1"
    );
    assert_eq!(
        registry
            .call("remember", r#"{"fact":"b"}"#)
            .await
            .unwrap()
            .content(),
        "2"
    );
    assert_eq!(
        registry
            .call("wait", r#"{"millis":2}"#)
            .await
            .unwrap()
            .content(),
        "waited 2 ms"
    );
}

#[tokio::test]
async fn optional_and_default_parameters_show_in_schema_and_handler() {
    let greet = define_tool!(
        /// Greets someone.
        #[tool(name = "greet")]
        move |
            /// Who to greet.
            name: String,
            /// How many times.
            #[arg(default = 2)]
            times: u32,
            /// Whether to shout.
            #[arg(default)]
            shout: bool,
            /// A closing word.
            closing: Option<String>,
        | {
            let text = format!("hi {name} ").repeat(times as usize) + closing.as_deref().unwrap_or("");
            if shout { text.to_uppercase() } else { text }
        }
    );
    let schema = &greet.definition().parameters;
    assert_eq!(schema["required"], json!(["name"]));
    assert_eq!(schema["properties"]["times"]["default"], 2);
    assert_eq!(schema["properties"]["shout"]["default"], false);
    assert_eq!(
        schema["properties"]["closing"]["type"],
        json!(["string", "null"])
    );

    let mut registry = ToolRegistry::new();
    registry.register(greet).unwrap();
    assert_eq!(
        registry
            .call("greet", r#"{"name":"Al"}"#)
            .await
            .unwrap()
            .content(),
        "hi Al hi Al "
    );
    assert_eq!(
        registry
            .call(
                "greet",
                r#"{"name":"Al","times":1,"shout":true,"closing":"bye"}"#
            )
            .await
            .unwrap()
            .content(),
        "HI AL BYE"
    );
}

#[tokio::test]
async fn the_context_form_receives_call_id_and_state() {
    struct Tenant {
        name: &'static str,
    }
    let whoami = define_tool!(
        /// Says who is asking.
        #[tool(name = "whoami")]
        move |#[context] id: CallId, #[context] tenant: State<Tenant>, loud: Option<bool>| {
            let text = format!("{} for {}", id.0.unwrap_or_default(), tenant.name);
            if loud.unwrap_or(false) { text.to_uppercase() } else { text }
        }
    );
    assert_eq!(
        whoami.definition().parameters["properties"],
        json!({ "loud": { "type": ["boolean", "null"] } })
    );
    let mut registry = ToolRegistry::new();
    registry.register(whoami).unwrap();
    registry.insert_state(Tenant { name: "acme" });
    let output = registry
        .call_with("whoami", "{}", ToolContext::new().with_call_id("call_9"))
        .await
        .unwrap();
    assert_eq!(output.content(), "call_9 for acme");
}

#[tokio::test]
async fn results_and_errors_follow_the_same_rules_as_tool_fns() {
    #[derive(Serialize)]
    struct Quote {
        total: f64,
    }
    let unit = define_tool!(
        #[tool(name = "noop", description = "Nothing.")]
        || {}
    );
    let json = define_tool!(
        #[tool(name = "quote", description = "A quote.")]
        |n: u32| Quote {
            total: f64::from(n) * 1.5
        }
    );
    let failing = define_tool!(
        #[tool(name = "fail", description = "Fails.")]
        |reason: String| -> Result<String, String> { Err(reason) }
    );
    let panicking = define_tool!(
        #[tool(name = "panic", description = "Panics.")]
        || -> String { panic!("inline bug") }
    );
    let mut registry = ToolRegistry::new();
    registry.register(unit).unwrap();
    registry.register(json).unwrap();
    registry.register(failing).unwrap();
    registry.register(panicking).unwrap();
    assert_eq!(
        registry.call("noop", "").await.unwrap().content(),
        "Success"
    );
    assert_eq!(
        registry
            .call("quote", r#"{"n":2}"#)
            .await
            .unwrap()
            .content(),
        r#"{"total":3.0}"#
    );
    let error = registry
        .call("fail", r#"{"reason":"no seats"}"#)
        .await
        .unwrap_err();
    assert_eq!(error.model_message(), "Error: no seats");
    let panicked = registry.call("panic", "").await.unwrap_err();
    assert!(
        matches!(panicked, ToolError::Panicked { .. }),
        "{panicked:?}"
    );
    let error = registry.call("quote", r#"{"n":"two"}"#).await.unwrap_err();
    assert!(
        matches!(error, ToolError::InvalidArguments { .. }),
        "{error:?}"
    );
}

/// Books a room.
#[tool(name = "book_room")]
fn book_room(
    /// The hotel.
    hotel: String,
    /// Nights to stay.
    #[arg(default = 1)]
    nights: u8,
    /// Breakfast included.
    breakfast: Option<bool>,
) -> String {
    format!("{hotel} {nights} {breakfast:?}")
}

#[test]
fn an_inline_tool_and_a_tool_fn_with_one_signature_have_one_schema() {
    let inline = define_tool!(
        /// Books a room.
        #[tool(name = "book_room")]
        |
            /// The hotel.
            hotel: String,
            /// Nights to stay.
            #[arg(default = 1)]
            nights: u8,
            /// Breakfast included.
            breakfast: Option<bool>,
        | format!("{hotel} {nights} {breakfast:?}")
    );
    assert_eq!(inline.definition(), BookRoomTool.definition());
    insta::assert_json_snapshot!("book_room_inline_and_fn", inline.definition());
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct BookingId(String);

#[tokio::test]
async fn options_are_carried_in_the_definition() {
    let cancelled = Arc::new(Mutex::new(Vec::<String>::new()));
    let cancelled_by_tool = Arc::clone(&cancelled);
    let pay = define_tool!(
        /// Pays an amount.
        #[tool(
            name = "pay",
            timeout = "2s",
            return_direct,
            overrides_built_in,
            skip_permission,
            defer = "auto",
            confirm = |amount: &f64, _to: &String| *amount > 100.0,
            // The arguments come as one value, whose type the closure is told.
            compensate = move |args, booking: BookingId| {
                cancelled_by_tool.lock().unwrap().push(format!("{} to {}", booking.0, args.to));
            }
        )]
        move |amount: f64, to: String| BookingId(format!("P-{amount}-{}", to.len()))
    );
    let options = &pay.definition().options;
    assert_eq!(options.timeout, Some(Duration::from_secs(2)));
    assert!(options.return_direct && options.overrides_built_in && options.skip_permission);
    assert_eq!(options.defer, Defer::Auto);
    assert_eq!(options.confirm, Confirm::WhenPredicate);
    assert!(options.compensable);

    assert!(pay.needs_confirmation(r#"{"amount": 250.0, "to": "Ana"}"#));
    assert!(!pay.needs_confirmation(r#"{"amount": 20.0, "to": "Ana"}"#));

    let arguments = r#"{"amount": 20.0, "to": "Ana"}"#;
    let output = pay.call(arguments, ToolContext::new()).await.unwrap();
    assert_eq!(output, ToolOutput::json(r#""P-20-3""#.into()));
    let undo = pay
        .compensate(arguments, &output, ToolContext::new())
        .expect("compensable");
    assert_eq!(undo.await.unwrap().content(), "Success");
    assert_eq!(*cancelled.lock().unwrap(), ["P-20-3 to Ana"]);

    let always = define_tool!(
        #[tool(name = "wipe", description = "Wipes.", confirm)]
        || ()
    );
    assert_eq!(always.definition().options.confirm, Confirm::Always);
    assert!(always.needs_confirmation("{}"));
    assert!(always
        .compensate("{}", &output, ToolContext::new())
        .is_none());
}

static RELEASED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Holds a seat.
#[tool(confirm = costly, compensate = release)]
async fn hold_seat(seat: String, price: u32) -> Result<String, String> {
    Ok(format!("hold-{seat}-{price}"))
}

fn costly(_seat: &String, price: &u32) -> bool {
    *price > 500
}

async fn release(args: HoldSeatArgs, hold: String) -> Result<(), String> {
    RELEASED
        .lock()
        .unwrap()
        .push(format!("{hold} ({})", args.seat));
    Ok(())
}

#[tokio::test]
async fn tool_fns_take_the_same_confirm_and_compensate_options() {
    assert!(HoldSeatTool.needs_confirmation(r#"{"seat":"1A","price":900}"#));
    assert!(!HoldSeatTool.needs_confirmation(r#"{"seat":"1A","price":90}"#));
    // Arguments that do not decode need no decision: the call fails before it runs.
    assert!(!HoldSeatTool.needs_confirmation(r#"{"seat":1}"#));
    let arguments = r#"{"seat":"1A","price":90}"#;
    let output = HoldSeatTool
        .call(arguments, ToolContext::new())
        .await
        .unwrap();
    let undo = HoldSeatTool
        .compensate(arguments, &output, ToolContext::new())
        .unwrap();
    assert_eq!(undo.await.unwrap().content(), "Success");
    assert_eq!(*RELEASED.lock().unwrap(), ["hold-1A-90 (1A)"]);
}

/// Reserves a room of a type.
#[tool(compensate = cancel_reservation)]
fn reserve_room(r#type: String) -> String {
    format!("room-{}", r#type)
}

fn cancel_reservation(args: ReserveRoomArgs, booking: String) -> String {
    format!("cancelled {booking} ({})", args.r#type)
}

#[tokio::test]
async fn a_raw_identifier_parameter_reaches_the_compensating_action() {
    let arguments = r#"{"type":"double"}"#;
    let output = ReserveRoomTool
        .call(arguments, ToolContext::new())
        .await
        .unwrap();
    let undo = ReserveRoomTool
        .compensate(arguments, &output, ToolContext::new())
        .unwrap();
    assert_eq!(
        undo.await.unwrap().content(),
        "cancelled room-double (double)"
    );
}

#[tokio::test]
async fn an_async_compensating_action_keeps_its_captures_and_gets_owned_arguments() {
    let released = Arc::new(Mutex::new(Vec::<String>::new()));
    let released_by_tool = Arc::clone(&released);
    let hold = define_tool!(
        /// Holds a seat.
        #[tool(
            name = "hold",
            // An `async` closure whose future borrows its captures: `AsyncFn`, not `Fn`. The
            // `&str` parameter reaches it by value, as the decoded `String`.
            compensate = async move |args, hold: String| {
                tokio::time::sleep(Duration::from_millis(1)).await;
                let seat: String = args.seat;
                released_by_tool.lock().unwrap().push(format!("{hold} ({seat})"));
            }
        )]
        |seat: &str| format!("hold-{seat}")
    );
    for seat in ["1A", "2B"] {
        let arguments = format!(r#"{{"seat":"{seat}"}}"#);
        let output = hold.call(&arguments, ToolContext::new()).await.unwrap();
        let undo = hold
            .compensate(&arguments, &output, ToolContext::new())
            .expect("compensable");
        assert_eq!(undo.await.unwrap().content(), "Success");
    }
    assert_eq!(*released.lock().unwrap(), ["hold-1A (1A)", "hold-2B (2B)"]);
}

static UNDONE: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Books a flight.
#[tool(compensate = cancel_flight)]
fn book_flight(
    /// Where from.
    from: String,
    #[arg(rename = "destination")] to: &str,
    #[context] call: CallId,
) -> String {
    format!("FL-{from}-{to}-{}", call.0.unwrap_or_default())
}

/// Gets the arguments as one typed value, the output, and the call's id from its context.
fn cancel_flight(
    BookFlightArgs { from, to }: BookFlightArgs,
    booked: String,
    call: CallId,
    state: State<Mutex<u32>>,
) {
    *state.0.lock().unwrap() += 1;
    UNDONE.lock().unwrap().push(format!(
        "{booked}: {from}->{to} by {}",
        call.0.unwrap_or_default()
    ));
}

#[tokio::test]
async fn a_compensating_action_gets_the_arguments_as_one_value_and_context_parameters() {
    let mut state = tool_sdk::define::SharedState::new();
    let counter = Arc::new(Mutex::new(0_u32));
    state.insert_arc(Arc::clone(&counter));
    let arguments = r#"{"from":"LIS","destination":"OSL"}"#;
    let output = BookFlightTool
        .call(arguments, ToolContext::new().with_call_id("c1"))
        .await
        .unwrap();
    let undo = BookFlightTool
        .compensate(
            arguments,
            &output,
            ToolContext::new().with_call_id("c1").with_state(&state),
        )
        .unwrap();
    assert_eq!(undo.await.unwrap().content(), "Success");
    assert_eq!(*UNDONE.lock().unwrap(), ["FL-LIS-OSL-c1: LIS->OSL by c1"]);
    assert_eq!(*counter.lock().unwrap(), 1);

    // A context parameter the context cannot give fails the compensation, as it fails a call.
    let undo = BookFlightTool
        .compensate(arguments, &output, ToolContext::new())
        .unwrap();
    assert!(undo.await.is_err());
}

#[test]
fn the_arguments_struct_is_public_with_a_field_per_argument() {
    let args = BookFlightArgs {
        from: "LIS".into(),
        to: "OSL".into(),
    };
    assert_eq!((args.from.as_str(), args.to.as_str()), ("LIS", "OSL"));
}

#[tokio::test]
async fn an_inline_compensating_action_takes_context_parameters() {
    let undone = Arc::new(Mutex::new(Vec::<String>::new()));
    let undone_by_tool = Arc::clone(&undone);
    let hold = define_tool!(
        /// Holds a seat.
        #[tool(
            name = "hold",
            compensate = move |args, hold: String, call: CallId| {
                let seat: &String = &args.seat;
                undone_by_tool.lock().unwrap().push(format!(
                    "{hold} ({seat}) by {}",
                    call.0.unwrap_or_default()
                ));
            }
        )]
        |seat: String| format!("hold-{seat}")
    );
    let arguments = r#"{"seat":"1A"}"#;
    let output = hold.call(arguments, ToolContext::new()).await.unwrap();
    let undo = hold
        .compensate(arguments, &output, ToolContext::new().with_call_id("c7"))
        .expect("compensable");
    assert_eq!(undo.await.unwrap().content(), "Success");
    assert_eq!(*undone.lock().unwrap(), ["hold-1A (1A) by c7"]);
}
