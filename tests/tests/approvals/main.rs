//! The approval page (`tool_sdk::approvals`, feature `approvals`) in a real browser: headless
//! Chromium from the system's packages, driven by `tests/page/browser.mjs` (playwright-core),
//! against a page over a loop whose runs pause. Each test checks what the browser showed and
//! what happened in the server: which tools ran, what was rolled back, what still waits.
//!
//! One test binary for the stage: each file of this folder is a module of it.

mod browser;
mod budget;
mod context;
mod deadline;
mod decided_by;
mod desk;
mod edited;
mod headers;
mod history;
mod polling;
mod reads;
mod webhook;
