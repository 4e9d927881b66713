//! The records one airline write touches, as they were before it.

use serde::{Deserialize, Serialize};

use super::db::{FlightDateStatus, FlightDb, Reservation, User};
use crate::store::PreImage;
use crate::undo::Kept;

/// Pre-images of reservations, users and flights on a date; each the first seen, that is,
/// before the write changed it.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Touched {
    reservations: Vec<(String, Kept<Reservation>)>,
    users: Vec<(String, Kept<User>)>,
    flight_dates: Vec<(String, String, Kept<FlightDateStatus>)>,
}

impl Touched {
    /// Keeps reservation `id` as it is now, unless kept already.
    pub(crate) fn reservation(&mut self, db: &FlightDb, id: &str) {
        if !self.reservations.iter().any(|(kept, _)| kept == id) {
            self.reservations
                .push((id.to_owned(), Kept::of(&db.reservations, id)));
        }
    }

    /// Keeps user `id` as it is now, unless kept already.
    pub(crate) fn user(&mut self, db: &FlightDb, id: &str) {
        if !self.users.iter().any(|(kept, _)| kept == id) {
            self.users.push((id.to_owned(), Kept::of(&db.users, id)));
        }
    }

    /// Keeps flight `number` on `date` as it is now, unless kept already.
    pub(crate) fn flight_date(&mut self, db: &FlightDb, number: &str, date: &str) {
        let Some(flight) = db.flights.get(number) else {
            return;
        };
        if !self
            .flight_dates
            .iter()
            .any(|(kept, on, _)| kept == number && on == date)
        {
            self.flight_dates.push((
                number.to_owned(),
                date.to_owned(),
                Kept::of(&flight.dates, date),
            ));
        }
    }
}

impl PreImage<FlightDb> for Touched {
    fn now(&self, db: &FlightDb) -> Self {
        Self {
            reservations: self
                .reservations
                .iter()
                .map(|(id, _)| (id.clone(), Kept::of(&db.reservations, id)))
                .collect(),
            users: self
                .users
                .iter()
                .map(|(id, _)| (id.clone(), Kept::of(&db.users, id)))
                .collect(),
            flight_dates: self
                .flight_dates
                .iter()
                .filter_map(|(number, date, _)| {
                    let flight = db.flights.get(number)?;
                    Some((number.clone(), date.clone(), Kept::of(&flight.dates, date)))
                })
                .collect(),
        }
    }

    fn records(&self) -> Vec<String> {
        let reservations = self
            .reservations
            .iter()
            .map(|(id, _)| format!("reservation:{id}"));
        let users = self.users.iter().map(|(id, _)| format!("user:{id}"));
        let dates = self
            .flight_dates
            .iter()
            .map(|(number, date, _)| format!("flight:{number}:{date}"));
        reservations.chain(users).chain(dates).collect()
    }

    fn is_empty(&self) -> bool {
        self.reservations.is_empty() && self.users.is_empty() && self.flight_dates.is_empty()
    }

    fn restore(&self, db: &mut FlightDb) {
        for (id, kept) in &self.reservations {
            kept.restore(&mut db.reservations, id);
        }
        for (id, kept) in &self.users {
            kept.restore(&mut db.users, id);
        }
        for (number, date, kept) in &self.flight_dates {
            if let Some(flight) = db.flights.get_mut(number) {
                kept.restore(&mut flight.dates, date);
            }
        }
    }
}
