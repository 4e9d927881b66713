//! The records one retail write touches, as they were before it.

use super::db::{Order, RetailDb, User};
use crate::store::PreImage;
use crate::undo::Kept;

/// Pre-images of orders and users (no tool changes a product); each the first seen, that is,
/// before the write changed it.
#[derive(Debug, Default)]
pub(crate) struct Touched {
    orders: Vec<(String, Kept<Order>)>,
    users: Vec<(String, Kept<User>)>,
}

impl Touched {
    /// Keeps order `id` as it is now, unless kept already.
    pub(crate) fn order(&mut self, db: &RetailDb, id: &str) {
        if !self.orders.iter().any(|(kept, _)| kept == id) {
            self.orders.push((id.to_owned(), Kept::of(&db.orders, id)));
        }
    }

    /// Keeps user `id` as it is now, unless kept already.
    pub(crate) fn user(&mut self, db: &RetailDb, id: &str) {
        if !self.users.iter().any(|(kept, _)| kept == id) {
            self.users.push((id.to_owned(), Kept::of(&db.users, id)));
        }
    }
}

impl PreImage<RetailDb> for Touched {
    fn restore(&self, db: &mut RetailDb) {
        for (id, kept) in &self.orders {
            kept.restore(&mut db.orders, id);
        }
        for (id, kept) in &self.users {
            kept.restore(&mut db.users, id);
        }
    }
}
