//! A sealed token is used once across replicas: each replica's sealer shares the durable
//! store as its replay guard, so a token used on one is refused on every other.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tool_sdk::gate::{Gate, GateError, GateOutcome, Kept, Sealer};
use tool_sdk::{define_tool, AssistantMessage, ToolCall, ToolRegistry};
use tool_sdk_tests::durable::{place, Backend};

const KEY: &[u8; 32] = b"a key the replicas all share!!!!";

async fn a_token_used_on_one_replica_is_refused_on_another(backend: Backend) {
    let place = place(backend, "token_across_replicas").await;
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let mut registry = ToolRegistry::new();
    registry
        .register(define_tool!(
            /// Sends money.
            #[tool(name = "pay", confirm)]
            move |eur: u32| -> String {
                counter.fetch_add(1, Ordering::SeqCst);
                format!("paid {eur}")
            }
        ))
        .unwrap();
    let gate = Gate::default();
    let reply = AssistantMessage::with_tool_calls(vec![ToolCall::new("p", "pay", r#"{"eur": 5}"#)]);
    let GateOutcome::Paused(paused) = gate
        .execute(&registry, ["pay".to_owned()].as_slice(), &reply)
        .await
    else {
        panic!("expected a pause");
    };
    let decisions = paused.decide().allow("p").build();
    // Each replica: its own sealer of the shared key, over its own handle on the store.
    let first = Sealer::new(KEY)
        .unwrap()
        .with_replay_guard(place.open().await.replay_guard());
    let second = Sealer::new(KEY)
        .unwrap()
        .with_replay_guard(place.open().await.replay_guard());
    let token = first.seal(&paused).unwrap();
    gate.resume(
        &registry,
        Kept::Sealed {
            sealer: &first,
            token: &token,
        },
        &decisions,
    )
    .await
    .unwrap();
    assert_eq!(
        gate.resume(
            &registry,
            Kept::Sealed {
                sealer: &second,
                token: &token
            },
            &decisions
        )
        .await
        .unwrap_err(),
        GateError::Replayed
    );
    assert_eq!(
        gate.resume(
            &registry,
            Kept::Sealed {
                sealer: &first,
                token: &token
            },
            &decisions
        )
        .await
        .unwrap_err(),
        GateError::Replayed
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    // A fresh token goes through the other replica.
    let fresh = first.seal(&paused).unwrap();
    gate.resume(
        &registry,
        Kept::Sealed {
            sealer: &second,
            token: &fresh,
        },
        &decisions,
    )
    .await
    .unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn sqlite() {
    a_token_used_on_one_replica_is_refused_on_another(Backend::Sqlite).await;
}

#[tokio::test]
async fn postgres() {
    a_token_used_on_one_replica_is_refused_on_another(Backend::Postgres).await;
}
