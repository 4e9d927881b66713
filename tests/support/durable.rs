//! Stores for the durability tests: a fresh SQLite file, or a fresh schema of the PostgreSQL
//! server that `scripts/test.sh` starts (`TOOL_SDK_POSTGRES_URL`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Which durable store a test runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A fresh SQLite file.
    Sqlite,
    /// A fresh schema on the test PostgreSQL server.
    Postgres,
}

/// A fresh, empty place for one test's store, with a directory for its other files.
#[derive(Debug)]
pub struct Place {
    /// `sqlite:PATH` or `postgres:CONFIG`, as the saga child takes it.
    pub spec: String,
    /// A directory of the test's own.
    pub dir: PathBuf,
}

impl Place {
    /// The SQLite path or PostgreSQL configuration, without the prefix.
    pub fn location(&self) -> &str {
        self.spec
            .split_once(':')
            .map(|(_, rest)| rest)
            .unwrap_or_default()
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The PostgreSQL server's configuration; the tests fail without it.
pub fn postgres_url() -> String {
    std::env::var("TOOL_SDK_POSTGRES_URL").unwrap_or_else(|_| {
        panic!(
            "TOOL_SDK_POSTGRES_URL is not set: these tests need the PostgreSQL server that \
             ./scripts/test.sh starts"
        )
    })
}

fn unique(test: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let clean: String = test
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!(
        "{clean}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A fresh place named after `test`.
pub async fn place(backend: Backend, test: &str) -> Place {
    let name = unique(test);
    let dir = std::env::temp_dir().join(format!("tool-sdk-{name}"));
    std::fs::create_dir_all(&dir).expect("create the test directory");
    let spec = match backend {
        Backend::Sqlite => format!("sqlite:{}", dir.join("store.db").display()),
        Backend::Postgres => {
            let url = postgres_url();
            let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .expect("connect to the test PostgreSQL server");
            let driver = tokio::spawn(connection);
            let schema = format!("t_{}", name.to_lowercase());
            client
                .batch_execute(&format!("CREATE SCHEMA {schema}"))
                .await
                .expect("create the test's schema");
            drop(client);
            let _ = driver.await;
            format!("postgres:{url} options=-csearch_path={schema}")
        }
    };
    Place { spec, dir }
}
