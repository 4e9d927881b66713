//! The PostgreSQL store's connections: a statement waiting on a lock does not hold up the
//! store's other operations, a connection the server closed is replaced, and a claim whose
//! second statement fails is undone.

use std::time::Duration;

use tokio_postgres::{Client, NoTls};
use tool_sdk::store::{Orphans, PostgresStore, RecordEntry, RunId, RunStore, StoreError};
use tool_sdk::{store::ChatMemory, Message, ToolCall};
use tool_sdk_tests::durable::{place, Backend, Place};

/// Long enough for any statement on an idle test server; what the tests wait for either
/// happens well within it or never does.
const PATIENCE: Duration = Duration::from_secs(10);

/// A connection of the test's own to the store's schema, beside the store's.
async fn admin(place: &Place) -> Client {
    let (client, connection) = tokio_postgres::connect(place.location(), NoTls)
        .await
        .expect("connect to the test PostgreSQL server");
    tokio::spawn(connection);
    client
}

/// A store whose sessions carry an application name of their own, to find them in
/// `pg_stat_activity`; returns the name too.
async fn named_store(place: &Place, name: &str) -> (PostgresStore, String) {
    let application = format!("tool_sdk_{name}_{}", std::process::id());
    let config = format!("{} application_name={application}", place.location());
    let store = PostgresStore::connect(&config)
        .await
        .expect("connect the store");
    (store, application)
}

#[tokio::test]
async fn a_statement_waiting_on_a_lock_does_not_hold_up_other_operations() {
    let place = place(Backend::Postgres, "pool_lock").await;
    let (store, application) = named_store(&place, "lock").await;
    store
        .store("trip", &[Message::user("book Lisbon")])
        .await
        .expect("store the conversation");

    // Another session holds the runs table: beginning a run must wait for it.
    let mut admin = admin(&place).await;
    let lock = admin.transaction().await.expect("begin");
    lock.batch_execute("LOCK TABLE tool_sdk_runs IN ACCESS EXCLUSIVE MODE")
        .await
        .expect("lock the runs table");
    let begin = tokio::spawn({
        let store = store.clone();
        async move { store.begin(&RunId::from_string("r1"), PATIENCE).await }
    });
    let watcher = self::admin(&place).await;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let waiting: i64 = watcher
            .query_one(
                "SELECT count(*) FROM pg_stat_activity
                 WHERE application_name = $1 AND wait_event_type = 'Lock'",
                &[&application],
            )
            .await
            .expect("read pg_stat_activity")
            .get(0);
        if waiting > 0 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "begin never waited on the lock"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(!begin.is_finished(), "begin waits for the table lock");

    // Meanwhile the conversation is read on another connection.
    let loaded = tokio::time::timeout(PATIENCE, store.load("trip"))
        .await
        .expect("a read is not queued behind the waiting statement")
        .expect("load the conversation");
    assert_eq!(loaded, vec![Message::user("book Lisbon")]);

    lock.commit().await.expect("release the lock");
    tokio::time::timeout(PATIENCE, begin)
        .await
        .expect("begin goes on once the lock is released")
        .expect("the task ends")
        .expect("begin the run");
}

#[tokio::test]
async fn connections_the_server_closed_are_replaced() {
    let place = place(Backend::Postgres, "pool_reconnect").await;
    // Its name lets the test close this store's connections and no one else's.
    let (store, application) = named_store(&place, "reconnect").await;
    let conversation = [Message::user("book Lisbon")];
    store
        .store("trip", &conversation)
        .await
        .expect("store the conversation");

    let admin = admin(&place).await;
    let closed = admin
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
            &[&application],
        )
        .await
        .expect("close the store's connections");
    assert!(!closed.is_empty(), "the store had a connection to close");

    // The operation that meets a closed connection may fail, classified; then the store
    // opens a new one and the data is there.
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let loaded = loop {
        match store.load("trip").await {
            Ok(loaded) => break loaded,
            Err(error) => {
                assert!(
                    matches!(error, StoreError::Backend(_)),
                    "a closed connection is a backend error: {error:?}"
                );
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "the store never reconnected; last error: {error}"
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    assert_eq!(loaded, conversation);
    store
        .begin(&RunId::from_string("after"), PATIENCE)
        .await
        .expect("a write after the reconnect");
}

#[tokio::test]
async fn a_configuration_that_does_not_parse_is_a_classified_error() {
    let error = PostgresStore::connect("host=127.0.0.1 port=not-a-port")
        .await
        .expect_err("the port is not a number");
    let message = error.to_string();
    assert!(
        message.contains("invalid PostgreSQL configuration"),
        "{message}"
    );
}

#[tokio::test]
async fn a_configuration_that_requires_tls_points_to_from_pool() {
    let error = PostgresStore::connect("host=127.0.0.1 sslmode=require")
        .await
        .expect_err("connect offers no TLS");
    let message = error.to_string();
    assert!(
        message.contains("sslmode=require") && message.contains("from_pool"),
        "{message}"
    );
}

#[tokio::test]
async fn a_claim_whose_entries_cannot_be_read_is_undone() {
    let place = place(Backend::Postgres, "pool_claim").await;
    let crashed = PostgresStore::connect(place.location())
        .await
        .expect("connect the first replica");
    let run = RunId::from_string("r1");
    crashed.begin(&run, PATIENCE).await.expect("begin");
    let call = ToolCall::new("c1", "book", r#"{"n": 1}"#);
    let entry: RecordEntry = serde_json::from_value(serde_json::json!({
        "seq": 0, "round": 1, "key": "c1", "call": call, "output": "booked",
        "output_is_json": false, "message_index": 1, "idempotency_key": "r1:1:c1",
    }))
    .expect("a record entry");
    crashed.record(&run, &entry).await.expect("record");

    // The entry is damaged: the claim's read fails.
    let admin = admin(&place).await;
    let saved: String = admin
        .query_one(
            "SELECT entry FROM tool_sdk_run_entries WHERE run_id = 'r1'",
            &[],
        )
        .await
        .expect("read the entry")
        .get(0);
    admin
        .execute("UPDATE tool_sdk_run_entries SET entry = 'not json'", &[])
        .await
        .expect("damage the entry");
    let recoverer = PostgresStore::connect(place.location())
        .await
        .expect("connect the second replica");
    let failed = recoverer.claim_orphan(Orphans::All, PATIENCE, &[]).await;
    assert!(matches!(failed, Err(StoreError::Backend(_))), "{failed:?}");

    // Repaired, the run is still an orphan, and the same replica can claim it.
    admin
        .execute("UPDATE tool_sdk_run_entries SET entry = $1", &[&saved])
        .await
        .expect("repair the entry");
    let orphan = recoverer
        .claim_orphan(Orphans::All, PATIENCE, &[])
        .await
        .expect("claim")
        .expect("the run is still an orphan");
    assert_eq!(orphan.run.as_str(), "r1");
    assert_eq!(orphan.pending.len(), 1);
}
