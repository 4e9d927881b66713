//! The records one airline write touches, as they were before it.

use super::db::{FlightDateStatus, FlightDb, Reservation, User};
use crate::store::PreImage;
use crate::undo::Kept;

/// Pre-images of reservations, users and flights on a date; each the first seen, that is,
/// before the write changed it.
#[derive(Debug, Default)]
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
