//! A store implements several traits at once (runs, chat memory, replay guard); with all of
//! them in scope, every method is called plainly, without naming its trait: no two of them
//! share a method name.

use std::time::Duration;

use tool_sdk::store::{ChatMemory, DurableStore, ReplayGuard, RunId, RunStore, SqliteStore};
use tool_sdk::Message;

#[tokio::test]
async fn every_method_of_a_durable_store_is_called_without_naming_its_trait() {
    let store = SqliteStore::open_in_memory().unwrap();
    fn durable(_: &dyn DurableStore) {}
    durable(&store);

    // Chat memory.
    store.store("ana", &[Message::user("hi")]).await.unwrap();
    assert_eq!(store.load("ana").await.unwrap(), [Message::user("hi")]);
    // Runs.
    let run = RunId::new();
    store.begin(&run, Duration::from_secs(30)).await.unwrap();
    store.renew(&run, Duration::from_secs(30)).await.unwrap();
    store.finish(&run).await.unwrap();
    // The replay guard.
    assert!(store.consume("nonce", u64::MAX).await.unwrap());
    assert!(!store.consume("nonce", u64::MAX).await.unwrap());
}
