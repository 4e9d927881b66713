//! The airline's database, field for field as τ²'s Pydantic models (`tau2/domains/airline/
//! data_model.py`) declare it, so that it loads from the package's `db.json` and dumps back
//! to what `model_dump()` gives: every field present (`None` as `null`), amounts of gift
//! cards and certificates as floats, everything else counted in whole dollars. Maps keep the
//! file's order, as Python's dicts do: searches list flights in that order.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// All flights, users and reservations (τ²'s `FlightDB`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FlightDb {
    pub(crate) flights: IndexMap<String, Flight>,
    pub(crate) users: IndexMap<String, User>,
    pub(crate) reservations: IndexMap<String, Reservation>,
}

// No doc comments on the argument types' items: schemars would make them descriptions, and
// the schemas keep τ²'s, which has none for the models and literals themselves.

// One way or round trip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FlightType {
    RoundTrip,
    OneWay,
}

// A cabin class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Cabin {
    Business,
    Economy,
    BasicEconomy,
}

impl Cabin {
    /// The cabin as τ² spells it, for messages that name it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Business => "business",
            Self::Economy => "economy",
            Self::BasicEconomy => "basic_economy",
        }
    }
}

// Whether travel insurance was bought.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Insurance {
    Yes,
    No,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Name {
    pub(crate) first_name: String,
    pub(crate) last_name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Address {
    pub(crate) address1: String,
    #[serde(default)]
    pub(crate) address2: Option<String>,
    pub(crate) city: String,
    pub(crate) country: String,
    pub(crate) state: String,
    pub(crate) zip: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct Payment {
    /// Unique identifier for the payment
    pub(crate) payment_id: String,
    /// Payment amount in dollars
    pub(crate) amount: i64,
}

/// A saved way to pay; gift cards and certificates hold a balance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub(crate) enum PaymentMethod {
    CreditCard {
        id: String,
        brand: String,
        last_four: String,
    },
    GiftCard {
        id: String,
        amount: f64,
    },
    Certificate {
        id: String,
        amount: f64,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct Passenger {
    /// Passenger's first name
    pub(crate) first_name: String,
    /// Passenger's last name
    pub(crate) last_name: String,
    /// Date of birth in YYYY-MM-DD format
    pub(crate) dob: String,
}

/// What a flight is on one date.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status")]
pub(crate) enum FlightDateStatus {
    #[serde(rename = "available")]
    Available {
        available_seats: IndexMap<Cabin, i64>,
        prices: IndexMap<Cabin, i64>,
    },
    #[serde(rename = "landed")]
    Landed {
        actual_departure_time_est: String,
        actual_arrival_time_est: String,
    },
    #[serde(rename = "cancelled")]
    Cancelled {},
    #[serde(rename = "delayed")]
    Delayed {
        estimated_departure_time_est: String,
        estimated_arrival_time_est: String,
    },
    #[serde(rename = "flying")]
    Flying {
        actual_departure_time_est: String,
        estimated_arrival_time_est: String,
    },
    #[serde(rename = "on time")]
    OnTime {
        estimated_departure_time_est: String,
        estimated_arrival_time_est: String,
    },
}

impl FlightDateStatus {
    /// The status word, as τ²'s `get_flight_status` returns it.
    pub(crate) fn status(&self) -> &'static str {
        match self {
            Self::Available { .. } => "available",
            Self::Landed { .. } => "landed",
            Self::Cancelled {} => "cancelled",
            Self::Delayed { .. } => "delayed",
            Self::Flying { .. } => "flying",
            Self::OnTime { .. } => "on time",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Flight {
    pub(crate) flight_number: String,
    pub(crate) origin: String,
    pub(crate) destination: String,
    pub(crate) scheduled_departure_time_est: String,
    pub(crate) scheduled_arrival_time_est: String,
    pub(crate) dates: IndexMap<String, FlightDateStatus>,
}

/// A flight offered for booking on a date (τ²'s `DirectFlight`), as searches return it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct DirectFlight {
    pub(crate) flight_number: String,
    pub(crate) origin: String,
    pub(crate) destination: String,
    pub(crate) status: &'static str,
    pub(crate) scheduled_departure_time_est: String,
    pub(crate) scheduled_arrival_time_est: String,
    pub(crate) date: Option<String>,
    pub(crate) available_seats: IndexMap<Cabin, i64>,
    pub(crate) prices: IndexMap<Cabin, i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ReservationFlight {
    pub(crate) flight_number: String,
    pub(crate) origin: String,
    pub(crate) destination: String,
    pub(crate) date: String,
    pub(crate) price: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct FlightInfo {
    /// Flight number, such as 'HAT001'.
    pub(crate) flight_number: String,
    /// The date for the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.
    pub(crate) date: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Membership {
    Gold,
    Silver,
    Regular,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct User {
    pub(crate) user_id: String,
    pub(crate) name: Name,
    pub(crate) address: Address,
    pub(crate) email: String,
    pub(crate) dob: String,
    pub(crate) payment_methods: IndexMap<String, PaymentMethod>,
    pub(crate) saved_passengers: Vec<Passenger>,
    pub(crate) membership: Membership,
    pub(crate) reservations: Vec<String>,
}

/// Set on a cancelled reservation; `None` (`null`) otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ReservationStatus {
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Reservation {
    pub(crate) reservation_id: String,
    pub(crate) user_id: String,
    pub(crate) origin: String,
    pub(crate) destination: String,
    pub(crate) flight_type: FlightType,
    pub(crate) cabin: Cabin,
    pub(crate) flights: Vec<ReservationFlight>,
    pub(crate) passengers: Vec<Passenger>,
    pub(crate) payment_history: Vec<Payment>,
    pub(crate) created_at: String,
    pub(crate) total_baggages: i64,
    pub(crate) nonfree_baggages: i64,
    pub(crate) insurance: Insurance,
    #[serde(default)]
    pub(crate) status: Option<ReservationStatus>,
}

/// An airport (τ²'s `AirportCode`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct AirportCode {
    pub(crate) iata: &'static str,
    pub(crate) city: &'static str,
}
