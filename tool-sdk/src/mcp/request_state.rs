//! The request state of an input request: the asking call sealed by a [`Sealer`], so that the
//! client's retry can only run the call the person was asked about, once, in time, on the
//! server that asked.
//!
//! # What a state is bound to
//!
//! - **The call**: its tool and the fingerprint of its arguments.
//! - **The server that issued it**, by the name it introduces itself with: another server
//!   sharing the key (and the store where states are redeemed) refuses it without using it
//!   up. Replicas of one server share its name, so any of them redeems it.
//! - **Not a session or a connection.** Request states exist only on 2026-07-28, whose
//!   requests carry no session: over streamable HTTP the revision removed `Mcp-Session-Id`,
//!   and each request, the retry included, stands alone and may reach any replica; over
//!   stdio the same stateless retry may reach another process behind a bridge that pools
//!   them. Binding a state to the connection that got it would refuse the retry the protocol
//!   designs. Older revisions, which have sessions, ask within the call (an elicitation
//!   request on the call's own session) and issue no state. Who may redeem a state is
//!   therefore whoever holds it and can reach the server: the state stays between the client
//!   and the server (TLS over a network), and it runs only the call asked about, once.

use std::fmt;
use std::time::SystemTime;

use crate::gate::{fingerprint, GateError, OpenedTurn, SealDomain, Sealer};
use crate::model::{AssistantMessage, ToolCall};
use crate::store::PausedTurn;

/// The key the sealed call waits under, named for what it is.
const WAITING_KEY: &str = "mcp/input-request";

/// Request states are sealed apart from the loop's paused turns: with one key for both, a
/// token of either never opens as the other.
const DOMAIN: SealDomain = SealDomain::new(b"tool-sdk/mcp-request-state/v1\n");

/// Why a retry's request state runs nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum StateRefused {
    /// Not sealed by this server's key, or changed since.
    Forged,
    /// Sealed by another server sharing the key; the name is this server's.
    OtherServer(String),
    /// Sealed, but its time ran out.
    Expired,
    /// Sealed for another tool or other arguments.
    OtherCall,
    /// Used once already.
    Replayed,
    /// The replay guard could not be asked.
    Unavailable,
}

/// Seals `call` into a request state issued by `server` (the server's name), its answer due
/// within `deadline` when the server's policy gives one.
pub(super) fn seal(
    sealer: &Sealer,
    server: &str,
    call: &ToolCall,
    deadline: Option<std::time::Duration>,
) -> Result<String, GateError> {
    let turn = PausedTurn::new(
        AssistantMessage::with_tool_calls(vec![call.clone()]),
        [call.name.as_str()],
        [WAITING_KEY],
    )
    .with_deadline_in(deadline);
    sealer.seal_in(DOMAIN, Some(server), &turn, SystemTime::now())
}

/// Opens `state` on `server` (this server's name) for `call` (the retry's tool and
/// arguments), not yet using it up.
pub(super) fn open(
    sealer: &Sealer,
    server: &str,
    state: &str,
    call: &ToolCall,
) -> Result<OpenedTurn, StateRefused> {
    let opened = sealer
        .open_in(DOMAIN, state, SystemTime::now())
        .map_err(|error| match error {
            GateError::Expired { .. } => StateRefused::Expired,
            _ => StateRefused::Forged,
        })?;
    let turn = opened.turn();
    if turn.awaiting() != [WAITING_KEY] {
        return Err(StateRefused::Forged);
    }
    if opened.issuer() != Some(server) {
        return Err(StateRefused::OtherServer(server.to_owned()));
    }
    match turn.reply().tool_calls.as_slice() {
        [sealed] if fingerprint(sealed) == fingerprint(call) => Ok(opened),
        _ => Err(StateRefused::OtherCall),
    }
}

/// Uses `opened` up: `Err` when it was used already.
pub(super) async fn consume(sealer: &Sealer, opened: &OpenedTurn) -> Result<(), StateRefused> {
    match opened.consume(sealer.replay_guard()).await {
        Ok(true) => Ok(()),
        Ok(false) => Err(StateRefused::Replayed),
        Err(error) => {
            tracing::warn!(%error, "the replay guard failed; the request state was not used");
            Err(StateRefused::Unavailable)
        }
    }
}

impl fmt::Display for StateRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self {
            Self::OtherServer(this) => {
                return write!(
                    f,
                    "the request state was issued by another server sharing this server's key, \
                     not by `{this}`; nothing ran"
                );
            }
            Self::Forged => {
                "the request state was not issued by this server, or was changed since; \
                 nothing ran"
            }
            Self::Expired => {
                "the request state has expired; nothing ran: call the tool again to be asked anew"
            }
            Self::OtherCall => {
                "the request state was issued for another call (another tool or other \
                 arguments); nothing ran"
            }
            Self::Replayed => "the request state was used already; the call did not run again",
            Self::Unavailable => {
                "the server could not check whether the request state was used before; \
                 nothing ran: try again"
            }
        };
        f.write_str(why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealer() -> Sealer {
        Sealer::new(&[3u8; 32]).unwrap()
    }

    #[test]
    fn a_request_state_and_a_paused_turn_of_one_key_never_open_as_each_other() {
        let sealer = sealer();
        let call = ToolCall::new("1", "rm", r#"{"path": "/"}"#);
        let state = seal(&sealer, "bank", &call, None).unwrap();
        assert!(open(&sealer, "bank", &state, &call).is_ok());
        assert!(matches!(sealer.open(&state), Err(GateError::BadSignature)));

        // A paused turn of the loop, shaped as a request state and sealed with the same key.
        let turn = PausedTurn::new(
            AssistantMessage::with_tool_calls(vec![call.clone()]),
            ["rm"],
            [WAITING_KEY],
        );
        let token = sealer.seal(&turn).unwrap();
        assert_eq!(
            open(&sealer, "bank", &token, &call).err(),
            Some(StateRefused::Forged)
        );
    }

    #[test]
    fn a_state_opens_only_for_its_call() {
        let sealer = sealer();
        let call = ToolCall::new("1", "rm", r#"{"path": "/tmp/a"}"#);
        let state = seal(&sealer, "bank", &call, None).unwrap();
        let reordered = ToolCall::new("2", "rm", r#"{ "path":"/tmp/a" }"#);
        assert!(open(&sealer, "bank", &state, &reordered).is_ok());
        let swapped = ToolCall::new("1", "rm", r#"{"path": "/"}"#);
        assert_eq!(
            open(&sealer, "bank", &state, &swapped).err(),
            Some(StateRefused::OtherCall)
        );
        let other_tool = ToolCall::new("1", "rmdir", r#"{"path": "/tmp/a"}"#);
        assert_eq!(
            open(&sealer, "bank", &state, &other_tool).err(),
            Some(StateRefused::OtherCall)
        );
    }

    #[test]
    fn a_state_opens_only_on_the_server_that_issued_it() {
        let sealer = sealer();
        let call = ToolCall::new("1", "transfer", r#"{"to": "ana", "amount": 5000}"#);
        let state = seal(&sealer, "bank", &call, None).unwrap();
        let refused = open(&sealer, "shop", &state, &call).err();
        assert_eq!(refused, Some(StateRefused::OtherServer("shop".into())));
        assert_eq!(
            refused.unwrap().to_string(),
            "the request state was issued by another server sharing this server's key, not by \
             `shop`; nothing ran"
        );
        assert!(open(&sealer, "bank", &state, &call).is_ok());
    }
}
