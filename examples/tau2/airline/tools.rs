//! The airline's 14 tools, as τ²'s `AirlineTools` (`tau2/domains/airline/tools.py`) defines
//! them: the same names, descriptions, argument types, checks, error messages, ids and
//! arithmetic, so that a run changes the database exactly as τ²'s does.
//!
//! The policy says to get the user's explicit confirmation before any action that updates the
//! booking database: each of the six writes is `confirm`, so the loop asks a person before it
//! runs one. None has an inverse tool; each keeps the pre-image of what it touches
//! (`Store::write`) and its compensation, `undo`, restores it.

use serde_json::Value;
use tool_sdk::define::ToolName;
use tool_sdk::tools;

use super::db::{
    AirportCode, Cabin, DirectFlight, Flight, FlightDateStatus, FlightDb, FlightInfo, FlightType,
    Insurance, Passenger, Payment, PaymentMethod, Reservation, ReservationFlight,
    ReservationStatus, User,
};
use super::Airline;

/// Ids a booking takes, the first free one; τ² assumes a task books at most three.
const NEW_RESERVATION_IDS: [&str; 3] = ["HATHAT", "HATHAU", "HATHAV"];
/// Numbers a new certificate's id takes (`certificate_3221322`, ...), the first free one.
const NEW_PAYMENT_IDS: [u32; 3] = [3221322, 3221323, 3221324];
/// τ²'s clock: every booking is made at this time.
const NOW: &str = "2024-05-15T15:00:00";

#[tools]
impl Airline {
    /// Book a reservation.
    #[allow(clippy::too_many_arguments)] // τ²'s signature, one argument per field
    #[tool(confirm, compensate = undo)]
    fn book_reservation(
        &self,
        /// The ID of the user to book the reservation such as 'sara_doe_496'`.
        user_id: String,
        /// The IATA code for the origin city such as 'SFO'.
        origin: String,
        /// The IATA code for the destination city such as 'JFK'.
        destination: String,
        /// The type of flight such as 'one_way' or 'round_trip'.
        flight_type: FlightType,
        /// The cabin class such as 'basic_economy', 'economy', or 'business'.
        cabin: Cabin,
        /// An array of objects containing details about each piece of flight.
        flights: Vec<FlightInfo>,
        /// An array of objects containing details about each passenger.
        passengers: Vec<Passenger>,
        /// An array of objects containing details about each payment method.
        payment_methods: Vec<Payment>,
        /// The total number of baggage items to book the reservation.
        total_baggages: i64,
        /// The number of non-free baggage items to book the reservation.
        nonfree_baggages: i64,
        /// Whether the reservation has insurance.
        insurance: Insurance,
    ) -> Result<Reservation, String> {
        self.store.write("book_reservation", |db, touched| {
            let user = get_user(db, &user_id)?;
            let reservation_id = NEW_RESERVATION_IDS
                .into_iter()
                .find(|id| !db.reservations.contains_key(*id))
                .ok_or("Too many reservations")?;
            let travellers = passengers.len() as i128;
            let mut reservation = Reservation {
                reservation_id: reservation_id.to_owned(),
                user_id: user_id.clone(),
                origin,
                destination,
                flight_type,
                cabin,
                flights: Vec::new(),
                passengers: passengers.clone(),
                payment_history: payment_methods.clone(),
                created_at: NOW.to_owned(),
                total_baggages,
                nonfree_baggages,
                insurance,
                status: None,
            };
            let mut total_price: i128 = 0;
            for info in &flights {
                let flight = get_flight(db, &info.flight_number)?;
                let (seats, prices) = available(flight, &info.date)?;
                if i128::from(*seat_count(seats, cabin)?) < travellers {
                    return Err(format!("Not enough seats on flight {}", info.flight_number));
                }
                let price = *seat_count(prices, cabin)?;
                reservation.flights.push(ReservationFlight {
                    flight_number: info.flight_number.clone(),
                    origin: flight.origin.clone(),
                    destination: flight.destination.clone(),
                    date: info.date.clone(),
                    price,
                });
                total_price += i128::from(price) * travellers;
            }
            if insurance == Insurance::Yes {
                total_price += 30 * travellers;
            }
            total_price += 50 * i128::from(nonfree_baggages);

            for payment in &payment_methods {
                let id = &payment.payment_id;
                let method = user
                    .payment_methods
                    .get(id)
                    .ok_or_else(|| format!("Payment method {id} not found"))?;
                if let PaymentMethod::GiftCard { amount, .. }
                | PaymentMethod::Certificate { amount, .. } = method
                {
                    if *amount < payment.amount as f64 {
                        return Err(format!("Not enough balance in payment method {id}"));
                    }
                }
            }
            let total_payment: i128 = payment_methods.iter().map(|p| i128::from(p.amount)).sum();
            if total_payment != total_price {
                return Err(format!(
                    "Payment amount does not add up, total price is {total_price}, but paid {total_payment}"
                ));
            }

            // The checks passed: take the payments, then the seats.
            touched.user(db, &user_id);
            let user = get_user_mut(db, &user_id)?;
            for payment in &payment_methods {
                let id = &payment.payment_id;
                match user.payment_methods.get_mut(id) {
                    Some(PaymentMethod::GiftCard { amount, .. }) => *amount -= payment.amount as f64,
                    Some(PaymentMethod::Certificate { .. }) => {
                        user.payment_methods.shift_remove(id);
                    }
                    Some(PaymentMethod::CreditCard { .. }) => {}
                    // A certificate named twice is gone the second time: τ²'s KeyError, raised
                    // with the payments before it taken.
                    None => return Err(format!("'{id}'")),
                }
            }
            for info in &flights {
                touched.flight_date(db, &info.flight_number, &info.date);
                let on_date = db
                    .flights
                    .get_mut(&info.flight_number)
                    .and_then(|flight| flight.dates.get_mut(&info.date));
                if let Some(FlightDateStatus::Available {
                    available_seats, ..
                }) = on_date
                {
                    if let Some(seats) = available_seats.get_mut(&cabin) {
                        *seats -= passengers.len() as i64;
                    }
                }
            }
            touched.reservation(db, reservation_id);
            db.reservations
                .insert(reservation_id.to_owned(), reservation.clone());
            get_user_mut(db, &user_id)?
                .reservations
                .push(reservation_id.to_owned());
            Ok(reservation)
        })
    }

    /// Calculate the result of a mathematical expression.
    #[tool]
    fn calculate(
        &self,
        /// The mathematical expression to calculate, such as '2 + 2'. The expression can contain numbers, operators (+, -, *, /), parentheses, and spaces.
        expression: String,
    ) -> Result<String, String> {
        crate::calculate::calculate(&expression)
    }

    /// Cancel the whole reservation.
    #[tool(confirm, compensate = undo)]
    fn cancel_reservation(
        &self,
        /// The reservation ID, such as 'ZFA04Y'.
        reservation_id: String,
    ) -> Result<Reservation, String> {
        self.store.write("cancel_reservation", |db, touched| {
            touched.reservation(db, &reservation_id);
            let reservation = get_reservation_mut(db, &reservation_id)?;
            // Every payment so far is refunded (a refund too, when cancelled twice); seats
            // are not released, as in τ².
            let refunds: Vec<Payment> = reservation
                .payment_history
                .iter()
                .map(|payment| Payment {
                    payment_id: payment.payment_id.clone(),
                    amount: -payment.amount,
                })
                .collect();
            reservation.payment_history.extend(refunds);
            reservation.status = Some(ReservationStatus::Cancelled);
            Ok(reservation.clone())
        })
    }

    /// Get the details of a reservation.
    #[tool]
    fn get_reservation_details(
        &self,
        /// The reservation ID, such as '8JX2WO'.
        reservation_id: String,
    ) -> Result<Reservation, String> {
        self.store
            .read(|db| get_reservation(db, &reservation_id).cloned())
    }

    /// Get the details of a user, including their reservations.
    #[tool]
    fn get_user_details(
        &self,
        /// The user ID, such as 'sara_doe_496'.
        user_id: String,
    ) -> Result<User, String> {
        self.store.read(|db| get_user(db, &user_id).cloned())
    }

    /// Returns a list of all available airports.
    #[tool]
    fn list_all_airports(&self) -> Vec<AirportCode> {
        AIRPORTS
            .iter()
            .map(|&(iata, city)| AirportCode { iata, city })
            .collect()
    }

    /// Search for direct flights between two cities on a specific date.
    #[tool]
    fn search_direct_flight(
        &self,
        /// The origin city airport in three letters, such as 'JFK'.
        origin: String,
        /// The destination city airport in three letters, such as 'LAX'.
        destination: String,
        /// The date of the flight in the format 'YYYY-MM-DD', such as '2024-01-01'.
        date: String,
    ) -> Result<Vec<DirectFlight>, String> {
        self.store.read(|db| {
            Ok(search_direct(
                db,
                &date,
                Some(&origin),
                Some(&destination),
                None,
            ))
        })
    }

    /// Search for one-stop flights between two cities on a specific date.
    #[tool]
    fn search_onestop_flight(
        &self,
        /// The origin city airport in three letters, such as 'JFK'.
        origin: String,
        /// The destination city airport in three letters, such as 'LAX'.
        destination: String,
        /// The date of the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.
        date: String,
    ) -> Result<Vec<(DirectFlight, DirectFlight)>, String> {
        self.store.read(|db| {
            let mut results = Vec::new();
            for mut first in search_direct(db, &date, Some(&origin), None, None) {
                first.date = Some(date.clone());
                // τ²'s next day: the day of the month plus one, unpadded, in May 2024.
                let second_date = if first.scheduled_arrival_time_est.contains("+1") {
                    format!("2024-05-{}", python_int(last_two(&date))? + 1)
                } else {
                    date.clone()
                };
                let leave_after = first.scheduled_arrival_time_est.clone();
                for mut second in search_direct(
                    db,
                    &second_date,
                    Some(&first.destination),
                    Some(&destination),
                    Some(&leave_after),
                ) {
                    second.date = Some(second_date.clone());
                    results.push((first.clone(), second));
                }
            }
            Ok(results)
        })
    }

    /// Send a certificate to a user. Be careful!
    #[tool(confirm, compensate = undo)]
    fn send_certificate(
        &self,
        /// The ID of the user to book the reservation, such as 'sara_doe_496'.
        user_id: String,
        /// The amount of the certificate to send.
        amount: i64,
    ) -> Result<String, String> {
        self.store.write("send_certificate", |db, touched| {
            touched.user(db, &user_id);
            let user = get_user_mut(db, &user_id)?;
            for number in NEW_PAYMENT_IDS {
                let id = format!("certificate_{number}");
                if !user.payment_methods.contains_key(&id) {
                    user.payment_methods.insert(
                        id.clone(),
                        PaymentMethod::Certificate {
                            id: id.clone(),
                            amount: amount as f64,
                        },
                    );
                    return Ok(format!(
                        "Certificate {id} added to user {user_id} with amount {amount}."
                    ));
                }
            }
            Err("Too many certificates".into())
        })
    }

    /// Transfer the user to a human agent, with a summary of the user's issue.
    ///
    /// Only transfer if
    ///  -  the user explicitly asks for a human agent
    ///  -  given the policy and the available tools, you cannot solve the user's issue.
    #[tool]
    fn transfer_to_human_agents(
        &self,
        /// A summary of the user's issue.
        summary: String,
    ) -> String {
        let _ = summary;
        "Transfer successful".into()
    }

    /// Update the baggage information of a reservation.
    #[tool(confirm, compensate = undo)]
    fn update_reservation_baggages(
        &self,
        /// The reservation ID, such as 'ZFA04Y'
        reservation_id: String,
        /// The updated total number of baggage items included in the reservation.
        total_baggages: i64,
        /// The updated number of non-free baggage items included in the reservation.
        nonfree_baggages: i64,
        /// The payment id stored in user profile, such as 'credit_card_7815826', 'gift_card_7815826', 'certificate_7815826'.
        payment_id: String,
    ) -> Result<Reservation, String> {
        self.store
            .write("update_reservation_baggages", |db, touched| {
                let reservation = get_reservation(db, &reservation_id)?;
                let user_id = reservation.user_id.clone();
                get_user(db, &user_id)?;
                let total_price = 50
                    * (i128::from(nonfree_baggages) - i128::from(reservation.nonfree_baggages))
                        .max(0);
                touched.user(db, &user_id);
                touched.reservation(db, &reservation_id);
                let payment =
                    pay_for_update(get_user_mut(db, &user_id)?, &payment_id, total_price)?;
                let reservation = get_reservation_mut(db, &reservation_id)?;
                reservation.payment_history.extend(payment);
                reservation.total_baggages = total_baggages;
                reservation.nonfree_baggages = nonfree_baggages;
                Ok(reservation.clone())
            })
    }

    /// Update the flight information of a reservation.
    #[tool(confirm, compensate = undo)]
    fn update_reservation_flights(
        &self,
        /// The reservation ID, such as 'ZFA04Y'.
        reservation_id: String,
        /// The cabin class of the reservation
        cabin: Cabin,
        /// An array of objects containing details about each piece of flight in the ENTIRE new reservation. Even if the a flight segment is not changed, it should still be included in the array.
        flights: Vec<FlightInfo>,
        /// The payment id stored in user profile, such as 'credit_card_7815826', 'gift_card_7815826', 'certificate_7815826'.
        payment_id: String,
    ) -> Result<Reservation, String> {
        self.store
            .write("update_reservation_flights", |db, touched| {
                let reservation = get_reservation(db, &reservation_id)?;
                let user_id = reservation.user_id.clone();
                get_user(db, &user_id)?;
                let travellers = reservation.passengers.len() as i128;
                let mut total_price: i128 = 0;
                let mut new_flights = Vec::new();
                for info in &flights {
                    // A flight already booked, in the same cabin, keeps the price paid.
                    let kept = reservation.flights.iter().find(|booked| {
                        booked.flight_number == info.flight_number
                            && booked.date == info.date
                            && cabin == reservation.cabin
                    });
                    if let Some(booked) = kept {
                        total_price += i128::from(booked.price) * travellers;
                        new_flights.push(booked.clone());
                        continue;
                    }
                    let flight = get_flight(db, &info.flight_number)?;
                    let (seats, prices) = available(flight, &info.date)?;
                    if i128::from(*seat_count(seats, cabin)?) < travellers {
                        return Err(format!("Not enough seats on flight {}", info.flight_number));
                    }
                    let price = *seat_count(prices, cabin)?;
                    total_price += i128::from(price) * travellers;
                    new_flights.push(ReservationFlight {
                        flight_number: info.flight_number.clone(),
                        origin: flight.origin.clone(),
                        destination: flight.destination.clone(),
                        date: info.date.clone(),
                        price,
                    });
                }
                let paid: i128 = reservation
                    .flights
                    .iter()
                    .map(|flight| i128::from(flight.price))
                    .sum();
                total_price -= paid * travellers;

                touched.user(db, &user_id);
                touched.reservation(db, &reservation_id);
                let payment =
                    pay_for_update(get_user_mut(db, &user_id)?, &payment_id, total_price)?;
                let reservation = get_reservation_mut(db, &reservation_id)?;
                reservation.payment_history.extend(payment);
                // Seats are not moved, as in τ² ("assume it takes time to be updated").
                reservation.flights = new_flights;
                reservation.cabin = cabin;
                Ok(reservation.clone())
            })
    }

    /// Update the passenger information of a reservation.
    #[tool(confirm, compensate = undo)]
    fn update_reservation_passengers(
        &self,
        /// The reservation ID, such as 'ZFA04Y'.
        reservation_id: String,
        /// An array of objects containing details about each passenger.
        passengers: Vec<Passenger>,
    ) -> Result<Reservation, String> {
        self.store
            .write("update_reservation_passengers", |db, touched| {
                touched.reservation(db, &reservation_id);
                let reservation = get_reservation_mut(db, &reservation_id)?;
                if passengers.len() != reservation.passengers.len() {
                    return Err("Number of passengers does not match".into());
                }
                reservation.passengers = passengers;
                Ok(reservation.clone())
            })
    }

    /// Get the status of a flight.
    #[tool]
    fn get_flight_status(
        &self,
        /// The flight number.
        flight_number: String,
        /// The date of the flight.
        date: String,
    ) -> Result<String, String> {
        self.store.read(|db| {
            Ok(get_flight_date(db, &flight_number, &date)?
                .status()
                .to_owned())
        })
    }

    /// Every write's compensation: the records the call touched, put back as they were.
    fn undo<Args>(&self, _: Args, output: Value, tool: ToolName) -> Result<(), String> {
        self.store.restore(&tool.0, &output)
    }
}

/// The airports `list_all_airports` names, in τ²'s order.
const AIRPORTS: [(&str, &str); 20] = [
    ("SFO", "San Francisco"),
    ("JFK", "New York"),
    ("LAX", "Los Angeles"),
    ("ORD", "Chicago"),
    ("DFW", "Dallas"),
    ("DEN", "Denver"),
    ("SEA", "Seattle"),
    ("ATL", "Atlanta"),
    ("MIA", "Miami"),
    ("BOS", "Boston"),
    ("PHX", "Phoenix"),
    ("IAH", "Houston"),
    ("LAS", "Las Vegas"),
    ("MCO", "Orlando"),
    ("EWR", "Newark"),
    ("CLT", "Charlotte"),
    ("MSP", "Minneapolis"),
    ("DTW", "Detroit"),
    ("PHL", "Philadelphia"),
    ("LGA", "LaGuardia"),
];

fn get_user<'a>(db: &'a FlightDb, id: &str) -> Result<&'a User, String> {
    db.users
        .get(id)
        .ok_or_else(|| format!("User {id} not found"))
}

fn get_user_mut<'a>(db: &'a mut FlightDb, id: &str) -> Result<&'a mut User, String> {
    db.users
        .get_mut(id)
        .ok_or_else(|| format!("User {id} not found"))
}

fn get_reservation<'a>(db: &'a FlightDb, id: &str) -> Result<&'a Reservation, String> {
    db.reservations
        .get(id)
        .ok_or_else(|| format!("Reservation {id} not found"))
}

fn get_reservation_mut<'a>(db: &'a mut FlightDb, id: &str) -> Result<&'a mut Reservation, String> {
    db.reservations
        .get_mut(id)
        .ok_or_else(|| format!("Reservation {id} not found"))
}

fn get_flight<'a>(db: &'a FlightDb, number: &str) -> Result<&'a Flight, String> {
    db.flights
        .get(number)
        .ok_or_else(|| format!("Flight {number} not found"))
}

fn get_flight_date<'a>(
    db: &'a FlightDb,
    number: &str,
    date: &str,
) -> Result<&'a FlightDateStatus, String> {
    get_flight(db, number)?
        .dates
        .get(date)
        .ok_or_else(|| format!("Flight {number} not found on date {date}"))
}

type CabinCounts = indexmap::IndexMap<Cabin, i64>;

/// The seats and prices of `flight` on `date`, when it can be booked.
fn available<'a>(
    flight: &'a Flight,
    date: &str,
) -> Result<(&'a CabinCounts, &'a CabinCounts), String> {
    let number = &flight.flight_number;
    match flight.dates.get(date) {
        None => Err(format!("Flight {number} not found on date {date}")),
        Some(FlightDateStatus::Available {
            available_seats,
            prices,
        }) => Ok((available_seats, prices)),
        Some(_) => Err(format!("Flight {number} not available on date {date}")),
    }
}

/// A cabin's count; a cabin missing from the map is τ²'s KeyError.
fn seat_count(counts: &CabinCounts, cabin: Cabin) -> Result<&i64, String> {
    counts
        .get(&cabin)
        .ok_or_else(|| format!("'{}'", cabin.as_str()))
}

/// τ²'s `_search_direct_flight`: the flights available on `date`, in the database's order.
fn search_direct(
    db: &FlightDb,
    date: &str,
    origin: Option<&str>,
    destination: Option<&str>,
    leave_after: Option<&str>,
) -> Vec<DirectFlight> {
    let mut results = Vec::new();
    for flight in db.flights.values() {
        if origin.is_some_and(|origin| flight.origin != origin)
            || destination.is_some_and(|destination| flight.destination != destination)
            || leave_after.is_some_and(|after| flight.scheduled_departure_time_est.as_str() < after)
        {
            continue;
        }
        if let Some(FlightDateStatus::Available {
            available_seats,
            prices,
        }) = flight.dates.get(date)
        {
            results.push(DirectFlight {
                flight_number: flight.flight_number.clone(),
                origin: flight.origin.clone(),
                destination: flight.destination.clone(),
                status: "available",
                scheduled_departure_time_est: flight.scheduled_departure_time_est.clone(),
                scheduled_arrival_time_est: flight.scheduled_arrival_time_est.clone(),
                date: None,
                available_seats: available_seats.clone(),
                prices: prices.clone(),
            });
        }
    }
    results
}

/// τ²'s `_payment_for_update`: takes `total_price` (negative: a refund) from the user's
/// payment method `payment_id`; the payment to record, unless the price is zero.
fn pay_for_update(
    user: &mut User,
    payment_id: &str,
    total_price: i128,
) -> Result<Option<Payment>, String> {
    let method = user
        .payment_methods
        .get_mut(payment_id)
        .ok_or("Payment method not found")?;
    match method {
        PaymentMethod::Certificate { .. } => {
            return Err("Certificate cannot be used to update reservation".into())
        }
        PaymentMethod::GiftCard { amount, .. } => {
            if *amount < total_price as f64 {
                return Err("Gift card balance is not enough".into());
            }
            *amount -= total_price as f64;
        }
        PaymentMethod::CreditCard { .. } => {}
    }
    if total_price == 0 {
        return Ok(None);
    }
    let amount = i64::try_from(total_price).map_err(|_| "the amount is too large".to_owned())?;
    Ok(Some(Payment {
        payment_id: payment_id.to_owned(),
        amount,
    }))
}

/// The last two characters of `text` (Python's `text[-2:]`).
fn last_two(text: &str) -> &str {
    let start = text
        .char_indices()
        .rev()
        .nth(1)
        .map_or(0, |(index, _)| index);
    &text[start..]
}

/// Python's `int(text)` for base 10: surrounding whitespace, a sign, digits.
fn python_int(text: &str) -> Result<i64, String> {
    let invalid = || format!("invalid literal for int() with base 10: '{text}'");
    let trimmed = text.trim();
    let digits = trimmed.trim_start_matches(['+', '-']);
    if digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || trimmed.len() - digits.len() > 1
    {
        return Err(invalid());
    }
    trimmed.parse().map_err(|_| invalid())
}
