//! A page where a person decides on paused runs, in a browser (feature `approvals`).
//!
//! [`ApprovalPage`] is a router over a [`ToolLoop`] (and the run store it keeps its runs in)
//! and the [`ChatMemory`] its runs keep their conversations in. It lists the runs waiting for
//! a decision, newest first, each with the conversation's last user message; for each waiting
//! call it shows the tool, its description and the arguments as indented JSON (a call the
//! policy did not gate shows as "will run", one that cannot run as "will not run"). The
//! person allows or denies each call, a denial with a message for the model, or corrects its
//! arguments and allows it so ("Allow, edited": checked against the tool as they type, the
//! error shown at the field, and again by the server; the model is told what they changed),
//! and submits once: the run resumes in the server, and the page shows what came of it: the answer, what
//! ran, and what was rolled back and why. The list updates itself as runs pause and are
//! decided elsewhere: it polls every 2 s for the waiting runs' ids (one read of the store, no
//! conversation loaded) and fetches a run it lacks alone; a form being filled in for a run
//! decided elsewhere says so. Plain HTML, a style sheet and a little script: usable with a
//! keyboard, readable on a phone.
//!
//! The runs it decides are those started with a chat memory
//! ([`Run::with_memory`](crate::run::Run::with_memory)): the page resumes each on its
//! conversation. Others are listed, to be decided in the application.
//!
//! A "decided" view lists, newest first and a page at a time, the history the run store keeps
//! ([`RunStore::list_decided`](crate::store::RunStore::list_decided)): what each run was asked,
//! who decided what, and what came of it, "running" while the resumed run runs. It is the
//! store's, so a restart or another page over the same store shows it, and it keeps itself
//! current without a reload.
//!
//! A run whose policy gives its pauses a deadline shows the time left, counted down; past it
//! an allowance is refused, and the page's server denies the run's waiting calls itself
//! ([`BoundPage::serve`]).
//!
//! Who decided is recorded with each decision: the person the page's check names
//! ([`with_authorize`](ApprovalPage::with_authorize); `local` by default), shown in the
//! outcome and kept with the run ([`DecisionRecord`](crate::store::DecisionRecord)). A run
//! whose reply has several waiting calls can be decided at once ("Allow all", "Deny all"),
//! each call still bound to what the page showed. And so that someone looks, a `Webhook`
//! (feature `webhook`) given to the loop posts each run that starts waiting to the
//! application's URL, with a link to it on the page.
//!
//! # Safe by construction
//!
//! - [`bind`](ApprovalPage::bind) listens on the loopback interface; and by default the page
//!   answers requests from this machine only, sent to a loopback name (`127.0.0.1`,
//!   `localhost`, `[::1]`: a site whose name an attacker points at this machine is refused),
//!   saying so to anyone else. Behind a reverse proxy on the same machine every request comes
//!   from loopback: give such a page a check of its own.
//!   [`with_authorize`](ApprovalPage::with_authorize) replaces that check with the
//!   application's (a session, a header set by a proxy that authenticated the person).
//! - A decision carries a CSRF token (the HMAC, under a key of the page's own, of a random
//!   value in a `SameSite=Lax`, `HttpOnly` cookie), and a post from another origin is
//!   refused.
//! - A decision's resume runs to its end in the server even when the browser leaves before
//!   the answer comes.
//! - Each allowance carries the fingerprint of the arguments shown: arguments changed between
//!   showing and deciding run nothing. A second submit (another tab, a replayed request) is
//!   refused, and nothing runs twice: the run store hands a pause to one resume.
//! - Every answer sets a content security policy that allows no inline script or style and no
//!   framing (with [`BoundPage::serve`], the HTTP server's own answers to a malformed or
//!   oversized request too); whatever a model or a tool wrote is escaped, so markup in an
//!   argument shows as text.
//! - What a person reads is what runs: a bidirectional control, a zero-width or control
//!   character in what a model, a tool or a user wrote shows as a marked `⟨U+202E⟩`, never
//!   applied, and a call whose arguments hold one carries a warning
//!   ([`Visible`](crate::gate::Visible)); arguments show from the text the model wrote, each
//!   string isolated so that right-to-left text cannot reorder what is around it. A call that
//!   cannot run (a tool not offered, arguments that do not decode) shows "will not run" and
//!   why.
//! - A decision is checked against every session cookie the browser sends: a cookie of the
//!   page's name that another page on this machine sets (cookies do not tell ports apart)
//!   cannot lock it. A denial's message is limited to 2,000 characters and a form to 256 KiB,
//!   by the server as well as the page.
//!
//! # Examples
//!
//! ```no_run
//! use std::sync::Arc;
//! use tool_sdk::approvals::ApprovalPage;
//! use tool_sdk::run::{CancellationToken, ToolLoop};
//! use tool_sdk::store::SqliteStore;
//! use tool_sdk::{ScriptedModel, ToolRegistry};
//!
//! # #[tokio::main]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let store = Arc::new(SqliteStore::open("agent.db")?);
//! let agent = ToolLoop::new(ScriptedModel::new([]), ToolRegistry::new()).with_store(store.clone());
//! let page = ApprovalPage::new(Arc::new(agent), store).bind(8080).await?;
//! println!("decide at {}", page.url());
//! page.serve(CancellationToken::new()).await?;
//! # Ok(())
//! # }
//! ```

mod authorize;
mod csrf;
mod escape;
mod form;
mod guard;
mod history;
mod outcomes;
mod render;
mod routes;
mod secured_io;
mod serve;
mod shared;
mod sweep;
#[cfg(feature = "webhook")]
mod webhook;

use std::fmt;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::request::Parts;
use axum::routing::{get, post};
use axum::Router;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use self::authorize::{loopback_only, Authorize};
use self::csrf::Csrf;
use self::guard::guard;
use self::outcomes::Outcomes;
use self::shared::Shared;
use crate::run::ToolLoop;
use crate::store::ChatMemory;

#[cfg(feature = "webhook")]
pub use self::webhook::{
    Webhook, WebhookError, WebhookFailure, DEFAULT_WEBHOOK_ATTEMPTS, DEFAULT_WEBHOOK_TIMEOUT,
};

/// How many paused runs the page lists unless told otherwise.
const DEFAULT_LISTED: usize = 50;

/// A page where a person decides on paused runs; see the [module](self).
pub struct ApprovalPage {
    agent: Arc<ToolLoop>,
    memory: Arc<dyn ChatMemory>,
    authorize: Box<Authorize>,
    title: String,
    listed: usize,
    sweep_every: Duration,
}

impl ApprovalPage {
    /// A page over `agent`'s paused runs (in its run store), whose conversations `memory`
    /// keeps.
    pub fn new(agent: Arc<ToolLoop>, memory: Arc<dyn ChatMemory>) -> Self {
        Self {
            agent,
            memory,
            authorize: Box::new(loopback_only),
            title: "tool-sdk approvals".to_owned(),
            listed: DEFAULT_LISTED,
            sweep_every: sweep::DEFAULT_SWEEP,
        }
    }

    /// Who may see the page and decide: `check` gets each request's head and lets it through
    /// (`Ok`, naming who makes it: their user name or id, recorded with each decision they send
    /// as its decider, [`DecisionRecord::decider`](crate::store::DecisionRecord::decider)) or
    /// refuses it with a reason shown to the person (`Err`). Replaces the default, which lets
    /// through requests from the loopback interface only and records their decisions as
    /// `local`'s.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use tool_sdk::approvals::ApprovalPage;
    /// use tool_sdk::run::ToolLoop;
    /// use tool_sdk::store::InMemoryChatMemory;
    /// use tool_sdk::{ScriptedModel, ToolRegistry};
    ///
    /// let agent = Arc::new(ToolLoop::new(ScriptedModel::new([]), ToolRegistry::new()));
    /// let page = ApprovalPage::new(agent, Arc::new(InMemoryChatMemory::new()))
    ///     // A proxy in front authenticates people and names them in this header.
    ///     .with_authorize(|request| match request.headers.get("x-authenticated-user") {
    ///         Some(user) if user == "ana" || user == "ben" => {
    ///             Ok(user.to_str().unwrap_or_default().to_owned())
    ///         }
    ///         _ => Err("Only the on-call team decides here.".to_owned()),
    ///     });
    /// # let _ = page;
    /// ```
    pub fn with_authorize(
        mut self,
        check: impl Fn(&Parts) -> Result<String, String> + Send + Sync + 'static,
    ) -> Self {
        self.authorize = Box::new(check);
        self
    }

    /// The name the page shows at its top and in its title: the application's.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = title.into();
        self
    }

    /// How many paused runs the page lists at most, newest first (50 by default).
    pub fn with_listed(mut self, listed: usize) -> Self {
        self.listed = listed;
        self
    }

    /// How often the page's server ([`BoundPage::serve`]) resumes the runs whose pause waited
    /// past its deadline ([`ToolLoop::expire_overdue`]; 5 s by default). A deadline is kept
    /// within this much: a person who allows in between is refused, and the next sweep denies.
    pub fn with_sweep_every(mut self, every: Duration) -> Self {
        self.sweep_every = every;
        self
    }

    /// The page as a router, to mount in the application's (at a path of its own, say
    /// `/approvals/`; its links are relative). The default check needs the connection's
    /// address: serve the application with
    /// `into_make_service_with_connect_info::<SocketAddr>()`, or give a check of its own.
    /// Fails only when the system has no randomness for the page's CSRF key.
    ///
    /// The router does not sweep for overdue runs as [`BoundPage::serve`] does: an application
    /// whose policy gives deadlines calls [`ToolLoop::expire_overdue`] on a timer of its own.
    pub fn router(self) -> io::Result<Router> {
        self.parts().map(|(router, _, _)| router)
    }

    /// The router, what its handlers share, and how often to sweep.
    fn parts(self) -> io::Result<(Router, Arc<Shared>, Duration)> {
        let csrf = Csrf::new().map_err(io::Error::other)?;
        let shared = Arc::new(Shared {
            agent: self.agent,
            memory: self.memory,
            authorize: self.authorize,
            title: self.title,
            listed: self.listed,
            csrf,
            outcomes: Outcomes::default(),
        });
        let router = Router::new()
            .route("/", get(routes::list))
            .route("/runs", get(routes::runs))
            .route("/run", get(routes::run))
            .route(
                "/decide",
                post(routes::decide).layer(DefaultBodyLimit::max(form::LARGEST_FORM)),
            )
            .route(
                "/check",
                post(routes::check).layer(DefaultBodyLimit::max(form::LARGEST_FORM)),
            )
            .route("/decided", get(routes::decided))
            .route("/outcome", get(routes::outcome))
            .route("/page.css", get(routes::style))
            .route("/page.js", get(routes::script))
            .layer(axum::middleware::from_fn_with_state(
                Arc::clone(&shared),
                guard,
            ))
            .with_state(Arc::clone(&shared));
        Ok((router, shared, self.sweep_every))
    }

    /// Listens on the loopback interface (`127.0.0.1`) at `port` (0: a free one), ready to
    /// [serve](BoundPage::serve).
    pub async fn bind(self, port: u16) -> io::Result<BoundPage> {
        self.bind_to(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
            .await
    }

    /// Listens at `address`: another interface means other machines reach the page, so give
    /// it a check of its own ([`with_authorize`](Self::with_authorize)); the default still
    /// lets only this machine decide.
    pub async fn bind_to(self, address: SocketAddr) -> io::Result<BoundPage> {
        let (router, shared, sweep_every) = self.parts()?;
        let listener = TcpListener::bind(address).await?;
        let local = listener.local_addr()?;
        Ok(BoundPage {
            listener,
            router,
            shared,
            sweep_every,
            url: format!("http://{local}/"),
        })
    }
}

/// An [`ApprovalPage`] listening, not yet serving: its URL is known.
pub struct BoundPage {
    listener: TcpListener,
    router: Router,
    shared: Arc<Shared>,
    sweep_every: Duration,
    url: String,
}

impl BoundPage {
    /// Where a browser opens the page: `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Serves until `shutdown` is cancelled; requests in flight then finish. Meanwhile it
    /// resumes, every few seconds ([`with_sweep_every`](ApprovalPage::with_sweep_every)), the
    /// runs whose pause waited past its deadline, and shows what came of each at its outcome.
    ///
    /// Each connection carries one request, so that every answer carries the page's security
    /// headers, even those the HTTP server gives itself (to a request it cannot parse, or
    /// whose URI or headers are too large). An application that serves
    /// [`router`](ApprovalPage::router) itself answers those with its own server.
    pub async fn serve(self, shutdown: CancellationToken) -> io::Result<()> {
        // The sweep's own token: it stops with the page, whether the shutdown or a failure
        // ended the serving, and stopping it cancels nothing of the caller's.
        let sweep_stop = shutdown.child_token();
        let sweeping = tokio::spawn(sweep::sweep(
            self.shared,
            self.sweep_every,
            sweep_stop.clone(),
        ));
        let served = serve::serve(self.listener, self.router, shutdown).await;
        sweep_stop.cancel();
        if let Err(error) = sweeping.await {
            tracing::error!(%error, "the page's sweep for overdue runs stopped unexpectedly");
        }
        served
    }
}

impl fmt::Debug for ApprovalPage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApprovalPage")
            .field("title", &self.title)
            .field("listed", &self.listed)
            .field("sweep_every", &self.sweep_every)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for BoundPage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BoundPage").field("url", &self.url).finish()
    }
}
