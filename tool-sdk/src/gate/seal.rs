//! Handing a paused reply out sealed: an HMAC-SHA256 token the application cannot be fooled
//! with, usable once, until it expires.

use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::Mac;
use serde::{Deserialize, Serialize};

use crate::gate::{GateError, MIN_KEY_BYTES};
use crate::store::{
    unix_seconds, HmacSha256, InMemoryReplayGuard, PausedTurn, ReplayGuard, RowSeal, StoreError,
};

/// Separates these MACs from any other use of the same key.
const DOMAIN: &[u8] = b"tool-sdk/paused-turn/v1\n";

/// What a sealed token is for: a paused turn of the loop or gate, or another use of the same
/// key (an MCP request state) whose tokens must never open as the loop's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SealDomain(&'static [u8]);

impl SealDomain {
    /// Paused turns handed out by the gate and the loop.
    pub(crate) const PAUSED_TURN: Self = Self(DOMAIN);

    /// A domain of its own, such as `b"tool-sdk/mcp-request-state/v1\n"`.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) const fn new(name: &'static [u8]) -> Self {
        Self(name)
    }
}

/// Seals paused replies into tokens and opens them again.
///
/// A token carries the paused reply (call ids, names, arguments), the names of the tools the
/// request offered, the keys that wait, a random nonce and an expiry, all under an HMAC-SHA256
/// of the application's key. A token with any byte changed, opened after its expiry, or used a
/// second time ([`ReplayGuard`]) is refused.
///
/// # Examples
///
/// ```
/// use tool_sdk::{gate::Sealer, store::PausedTurn};
/// use tool_sdk::{AssistantMessage, ToolCall};
///
/// let sealer = Sealer::new(&[7u8; 32]).unwrap();
/// let reply = AssistantMessage::with_tool_calls(vec![ToolCall::new("c1", "pay", r#"{"eur": 5}"#)]);
/// let paused = PausedTurn::new(reply, ["pay"], ["c1"]);
/// let token = sealer.seal(&paused).unwrap();
///
/// let opened = sealer.open(&token).unwrap();
/// assert_eq!(opened.turn(), &paused);
///
/// let mut forged = token.clone();
/// forged.replace_range(10..11, if &token[10..11] == "A" { "B" } else { "A" });
/// assert!(sealer.open(&forged).is_err());
/// ```
#[derive(Clone)]
pub struct Sealer {
    /// Keyed once; cloned for each token.
    mac: HmacSha256,
    ttl: Duration,
    guard: Arc<dyn ReplayGuard>,
    /// Whether the guard was chosen ([`with_replay_guard`](Self::with_replay_guard)) rather
    /// than this process's: what replicas sharing the key need.
    guard_chosen: bool,
}

/// A token opened and verified, not yet used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenedTurn {
    turn: PausedTurn,
    nonce: String,
    expires_at: u64,
    issuer: Option<String>,
}

impl OpenedTurn {
    /// The paused reply, exactly as sealed.
    pub fn turn(&self) -> &PausedTurn {
        &self.turn
    }

    /// The paused reply, taken.
    pub(crate) fn into_turn(self) -> PausedTurn {
        self.turn
    }

    /// Who sealed the token, when its domain names one (an MCP server, by its name).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn issuer(&self) -> Option<&str> {
        self.issuer.as_deref()
    }

    /// Marks the token used; `false` when it was used already.
    pub(crate) async fn consume(&self, guard: &dyn ReplayGuard) -> Result<bool, StoreError> {
        guard.consume(&self.nonce, self.expires_at).await
    }
}

#[derive(Serialize, Deserialize)]
struct Payload {
    v: u8,
    nonce: String,
    expires_at: u64,
    /// Who sealed the token, for a domain whose tokens are bound to their issuer: under the
    /// MAC like the rest, so that an opener of the same key compares it with itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    issuer: Option<String>,
    turn: PausedTurn,
}

impl Sealer {
    /// A sealer with `key` (at least 32 bytes), tokens valid for 24 hours, and this process's
    /// replay guard, which every sealer of the process shares unless given another: a token
    /// used through one sealer is refused by all of them.
    ///
    /// Several processes (replicas) sharing a key must share a guard too, or a token used on
    /// one could be used again on another: give each the same [`ReplayGuard`] over shared
    /// storage with [`with_replay_guard`](Self::with_replay_guard).
    pub fn new(key: &[u8]) -> Result<Self, GateError> {
        if key.len() < MIN_KEY_BYTES {
            return Err(GateError::WeakKey(key.len()));
        }
        let mac =
            <HmacSha256 as Mac>::new_from_slice(key).map_err(|_| GateError::WeakKey(key.len()))?;
        Ok(Self {
            mac,
            ttl: Duration::from_secs(24 * 60 * 60),
            guard: process_guard(),
            guard_chosen: false,
        })
    }

    /// How long a token stays valid.
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Where used nonces are remembered instead of this process's guard: one shared by every
    /// replica that opens tokens of this key, so a token used on one is refused on all.
    pub fn with_replay_guard(mut self, guard: Arc<dyn ReplayGuard>) -> Self {
        self.guard = guard;
        self.guard_chosen = true;
        self
    }

    /// The replay guard in use.
    pub fn replay_guard(&self) -> &dyn ReplayGuard {
        &*self.guard
    }

    /// Whether the replay guard was chosen with [`with_replay_guard`](Self::with_replay_guard)
    /// rather than left as this process's.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn replay_guard_chosen(&self) -> bool {
        self.guard_chosen
    }

    /// The seal, under this sealer's key, for a durable store to put on the paused turns and
    /// compensation record entries it keeps, so that one edited in the database runs nothing
    /// (`SqliteStore::with_row_seal`, `PostgresStore::with_row_seal`). Its MACs are kept
    /// apart from the tokens' by a domain of their own: a token never passes for a row.
    pub fn row_seal(&self) -> RowSeal {
        RowSeal::from_mac(self.mac.clone())
    }

    /// Seals `turn`, valid from now for the sealer's time to live.
    pub fn seal(&self, turn: &PausedTurn) -> Result<String, GateError> {
        self.seal_at(turn, SystemTime::now())
    }

    /// Seals `turn` as of `now`.
    pub fn seal_at(&self, turn: &PausedTurn, now: SystemTime) -> Result<String, GateError> {
        self.seal_in(SealDomain::PAUSED_TURN, None, turn, now)
    }

    /// Seals `turn` as of `now` for `domain`, issued by `issuer` when the domain binds its
    /// tokens to one: only [`open_in`](Self::open_in) with the same domain opens it, and
    /// [`OpenedTurn::issuer`] names the issuer.
    pub(crate) fn seal_in(
        &self,
        domain: SealDomain,
        issuer: Option<&str>,
        turn: &PausedTurn,
        now: SystemTime,
    ) -> Result<String, GateError> {
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce)
            .map_err(|_| GateError::Malformed("no randomness for a nonce"))?;
        let payload = Payload {
            v: 1,
            nonce: URL_SAFE_NO_PAD.encode(nonce),
            expires_at: unix_seconds(now).saturating_add(self.ttl.as_secs()),
            issuer: issuer.map(str::to_owned),
            turn: turn.clone(),
        };
        let bytes = serde_json::to_vec(&payload)
            .map_err(|_| GateError::Malformed("unserializable turn"))?;
        let tag = self.mac(domain, &bytes).finalize().into_bytes();
        Ok(format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(&bytes),
            URL_SAFE_NO_PAD.encode(tag)
        ))
    }

    /// Verifies a token now: signature, then expiry. It is not marked used; applying decisions
    /// through [`Gate::resume`](crate::gate::Gate::resume) does that.
    pub fn open(&self, token: &str) -> Result<OpenedTurn, GateError> {
        self.open_at(token, SystemTime::now())
    }

    /// Verifies a token as of `now`.
    pub fn open_at(&self, token: &str, now: SystemTime) -> Result<OpenedTurn, GateError> {
        self.open_in(SealDomain::PAUSED_TURN, token, now)
    }

    /// Verifies a token sealed for `domain`, as of `now`.
    pub(crate) fn open_in(
        &self,
        domain: SealDomain,
        token: &str,
        now: SystemTime,
    ) -> Result<OpenedTurn, GateError> {
        let (payload, tag) = token
            .split_once('.')
            .ok_or(GateError::Malformed("no signature part"))?;
        let bytes = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| GateError::Malformed("the content is not base64url"))?;
        let tag = URL_SAFE_NO_PAD
            .decode(tag)
            .map_err(|_| GateError::Malformed("the signature is not base64url"))?;
        // Constant-time comparison.
        self.mac(domain, &bytes)
            .verify_slice(&tag)
            .map_err(|_| GateError::BadSignature)?;
        let payload: Payload = serde_json::from_slice(&bytes)
            .map_err(|_| GateError::Malformed("the content is not a paused turn"))?;
        if payload.v != 1 {
            return Err(GateError::Malformed("unknown version"));
        }
        if unix_seconds(now) >= payload.expires_at {
            return Err(GateError::Expired {
                expired_at: payload.expires_at,
            });
        }
        Ok(OpenedTurn {
            turn: payload.turn,
            nonce: payload.nonce,
            expires_at: payload.expires_at,
            issuer: payload.issuer,
        })
    }

    fn mac(&self, domain: SealDomain, bytes: &[u8]) -> HmacSha256 {
        let mut mac = self.mac.clone();
        mac.update(domain.0);
        mac.update(bytes);
        mac
    }
}

impl fmt::Debug for Sealer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sealer")
            .field("key", &"<redacted>")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

/// The replay guard sealers share in this process unless given another.
fn process_guard() -> Arc<dyn ReplayGuard> {
    static GUARD: OnceLock<Arc<InMemoryReplayGuard>> = OnceLock::new();
    let guard = GUARD.get_or_init(|| Arc::new(InMemoryReplayGuard::default()));
    Arc::clone(guard) as Arc<dyn ReplayGuard>
}
