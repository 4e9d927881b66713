#![deny(warnings)]

use std::sync::{Arc, Mutex};

use tool_sdk::{define::CallId, tools, ToolRegistry};

#[derive(Default)]
struct Hotel {
    cancelled: Mutex<Vec<String>>,
    limit: u32,
}

#[tools]
impl Hotel {
    /// Books a room; both hooks are methods taking `&self`.
    #[tool(confirm = over_limit, compensate = cancel)]
    fn book(&self, guest: String, nights: u32) -> String {
        format!("{guest}-{nights}")
    }

    /// Holds a room; both hooks are associated functions without `self`, one `async`.
    #[tool(confirm = always_confirm, compensate = release)]
    async fn hold(&self, guest: &str) -> Result<String, String> {
        Ok(format!("hold-{guest}"))
    }

    /// Pays; an `async` method taking `&self` whose future borrows the instance, and a borrowed
    /// parameter (by reference to its decoded value in the predicate, by value in the action).
    #[tool(confirm = large, compensate = refund)]
    fn pay(&self, to: &str, amount: u32) -> u32 {
        let _ = to;
        amount
    }

    /// Mixes a sibling method with a path to a free function and a closure.
    #[tool(confirm = is_vip, compensate = |_args: NoteArgs, (): ()| {})]
    fn note(guest: String) {
        let _ = guest;
    }

    fn over_limit(&self, _guest: &String, nights: &u32) -> bool {
        *nights > self.limit
    }

    fn cancel(&self, BookArgs { guest, nights }: BookArgs, booking: String) {
        if let Ok(mut cancelled) = self.cancelled.lock() {
            cancelled.push(format!("{booking} for {guest} ({nights} nights)"));
        }
    }

    fn always_confirm(_guest: &String) -> bool {
        true
    }

    /// With a context parameter after the output.
    async fn release(args: HoldArgs, hold: String, call: CallId) -> Result<(), String> {
        let _ = (args.guest, hold, call);
        Ok(())
    }

    fn large(&self, _to: &String, amount: &u32) -> bool {
        *amount > self.limit * 100
    }

    async fn refund(&self, args: PayArgs, paid: u32) {
        if let Ok(mut cancelled) = self.cancelled.lock() {
            cancelled.push(format!("refund {paid} of {} to {}", args.amount, args.to));
        }
    }
}

fn is_vip(guest: &String) -> bool {
    guest.starts_with("vip")
}

fn main() {
    let mut registry = ToolRegistry::new();
    let _ = registry.register_set(Arc::new(Hotel::default()));
}
