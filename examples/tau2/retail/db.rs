//! The retail store's database, field for field as τ²'s Pydantic models (`tau2/domains/
//! retail/data_model.py`) declare it: every field present (`None` as `null`), prices, amounts
//! and balances as floats. Maps keep the file's order, as Python's dicts do.

use indexmap::IndexMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// All products, users and orders (τ²'s `RetailDB`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RetailDb {
    pub(crate) products: IndexMap<String, Product>,
    pub(crate) users: IndexMap<String, User>,
    pub(crate) orders: IndexMap<String, Order>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Variant {
    pub(crate) item_id: String,
    pub(crate) options: IndexMap<String, String>,
    pub(crate) available: bool,
    pub(crate) price: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Product {
    pub(crate) name: String,
    pub(crate) product_id: String,
    pub(crate) variants: IndexMap<String, Variant>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct UserName {
    pub(crate) first_name: String,
    pub(crate) last_name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct UserAddress {
    pub(crate) address1: String,
    pub(crate) address2: String,
    pub(crate) city: String,
    pub(crate) country: String,
    pub(crate) state: String,
    pub(crate) zip: String,
}

/// A saved way to pay; a gift card holds a balance.
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
        balance: f64,
    },
    Paypal {
        id: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct User {
    pub(crate) user_id: String,
    pub(crate) name: UserName,
    pub(crate) address: UserAddress,
    pub(crate) email: String,
    pub(crate) payment_methods: IndexMap<String, PaymentMethod>,
    pub(crate) orders: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct OrderFulfillment {
    pub(crate) tracking_id: Vec<String>,
    pub(crate) item_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct OrderItem {
    pub(crate) name: String,
    pub(crate) product_id: String,
    pub(crate) item_id: String,
    pub(crate) price: f64,
    pub(crate) options: IndexMap<String, String>,
}

/// A payment or a refund.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TransactionType {
    Payment,
    Refund,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct OrderPayment {
    pub(crate) transaction_type: TransactionType,
    pub(crate) amount: f64,
    pub(crate) payment_method_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum OrderStatus {
    #[serde(rename = "processed")]
    Processed,
    #[serde(rename = "pending")]
    Pending,
    #[serde(rename = "pending (item modified)")]
    PendingItemModified,
    #[serde(rename = "delivered")]
    Delivered,
    #[serde(rename = "cancelled")]
    Cancelled,
    #[serde(rename = "exchange requested")]
    ExchangeRequested,
    #[serde(rename = "return requested")]
    ReturnRequested,
}

impl OrderStatus {
    /// τ²'s `"pending" in order.status`, its loose check of a pending order.
    pub(crate) fn is_pending(self) -> bool {
        matches!(self, Self::Pending | Self::PendingItemModified)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Order {
    pub(crate) order_id: String,
    pub(crate) user_id: String,
    pub(crate) address: UserAddress,
    pub(crate) items: Vec<OrderItem>,
    pub(crate) status: OrderStatus,
    pub(crate) fulfillments: Vec<OrderFulfillment>,
    pub(crate) payment_history: Vec<OrderPayment>,
    #[serde(default)]
    pub(crate) cancel_reason: Option<String>,
    #[serde(default)]
    pub(crate) exchange_items: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) exchange_new_items: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) exchange_payment_method_id: Option<String>,
    #[serde(default)]
    pub(crate) exchange_price_difference: Option<PyNumber>,
    #[serde(default)]
    pub(crate) return_items: Option<Vec<String>>,
    #[serde(default)]
    pub(crate) return_payment_method_id: Option<String>,
}

/// A float field as Python holds it: τ² assigns `round(0, 2)`, the integer 0, to an order's
/// price difference when no item is exchanged, and `model_dump()` keeps it an integer (`0`, not
/// `0.0`). Loaded from the file, it is a float, as Pydantic validates it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum PyNumber {
    Int(i64),
    Float(f64),
}

impl Serialize for PyNumber {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Int(value) => serializer.serialize_i64(*value),
            Self::Float(value) => serializer.serialize_f64(*value),
        }
    }
}

impl<'de> Deserialize<'de> for PyNumber {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        f64::deserialize(deserializer).map(Self::Float)
    }
}
