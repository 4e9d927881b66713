//! The records one retail write touches, as they were before it.

use serde::{Deserialize, Serialize};

use super::db::{Order, RetailDb, User};
use crate::store::PreImage;
use crate::undo::Kept;

/// Pre-images of orders and users (no tool changes a product); each the first seen, that is,
/// before the write changed it.
#[derive(Debug, Default, Serialize, Deserialize)]
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
    fn now(&self, db: &RetailDb) -> Self {
        Self {
            orders: self
                .orders
                .iter()
                .map(|(id, _)| (id.clone(), Kept::of(&db.orders, id)))
                .collect(),
            users: self
                .users
                .iter()
                .map(|(id, _)| (id.clone(), Kept::of(&db.users, id)))
                .collect(),
        }
    }

    fn records(&self) -> Vec<String> {
        let orders = self.orders.iter().map(|(id, _)| format!("order:{id}"));
        let users = self.users.iter().map(|(id, _)| format!("user:{id}"));
        orders.chain(users).collect()
    }

    fn is_empty(&self) -> bool {
        self.orders.is_empty() && self.users.is_empty()
    }

    fn restore(&self, db: &mut RetailDb) {
        for (id, kept) in &self.orders {
            kept.restore(&mut db.orders, id);
        }
        for (id, kept) in &self.users {
            kept.restore(&mut db.users, id);
        }
    }
}
