//! The retail store's 15 tools, as τ²'s `RetailTools` (`tau2/domains/retail/tools.py`)
//! defines them: the same names, descriptions, argument types, checks, error messages and
//! float arithmetic (with its `round(x, 2)`s), so that a run changes the database exactly as
//! τ²'s does.
//!
//! The policy says to get the user's explicit confirmation before any action that updates the
//! database: each of the seven writes is `confirm`. None has an inverse tool; each keeps the
//! pre-image of what it touches (`Store::write`) and its compensation, `undo`, restores it.

use serde_json::{Map, Value};
use tool_sdk::define::ToolName;
use tool_sdk::tools;

use super::db::{
    Order, OrderPayment, OrderStatus, PaymentMethod, Product, PyNumber, RetailDb, TransactionType,
    User, UserAddress, Variant,
};
use super::Retail;
use crate::db_hash::round2;

#[tools]
impl Retail {
    /// Calculate the result of a mathematical expression.
    #[tool]
    fn calculate(
        &self,
        /// The mathematical expression to calculate, such as '2 + 2'. The expression can contain numbers, operators (+, -, *, /), parentheses, and spaces.
        expression: String,
    ) -> Result<String, String> {
        crate::calculate::calculate(&expression)
    }

    /// Cancel a pending order. If the order is already processed or delivered,
    ///
    /// it cannot be cancelled. The agent needs to explain the cancellation detail
    /// and ask for explicit user confirmation (yes/no) to proceed. If the user confirms,
    /// the order status will be changed to 'cancelled' and the payment will be refunded.
    /// The refund will be added to the user's gift card balance immediately if the payment
    /// was made using a gift card, otherwise the refund would take 5-7 business days to process.
    /// The function returns the order details after the cancellation.
    #[tool(confirm, compensate = undo)]
    fn cancel_pending_order(
        &self,
        /// The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
        order_id: String,
        /// The reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'.
        reason: String,
    ) -> Result<Order, String> {
        self.store.write("cancel_pending_order", |db, touched| {
            let order = get_order(db, &order_id)?;
            if order.status != OrderStatus::Pending {
                return Err("Non-pending order cannot be cancelled".into());
            }
            if reason != "no longer needed" && reason != "ordered by mistake" {
                return Err("Invalid reason".into());
            }
            let user_id = order.user_id.clone();
            let payments = order.payment_history.clone();
            touched.order(db, &order_id);
            touched.user(db, &user_id);
            let mut refunds = Vec::new();
            for payment in &payments {
                refunds.push(OrderPayment {
                    transaction_type: TransactionType::Refund,
                    amount: payment.amount,
                    payment_method_id: payment.payment_method_id.clone(),
                });
                // Refunded to a gift card at once. A payment method gone from the user fails
                // here with the refunds before it made, as in τ².
                let method = get_payment_method(db, &user_id, &payment.payment_method_id)?;
                if let PaymentMethod::GiftCard { balance, .. } = method {
                    *balance = round2(*balance + payment.amount);
                }
            }
            let order = get_order_mut(db, &order_id)?;
            order.status = OrderStatus::Cancelled;
            order.cancel_reason = Some(reason);
            order.payment_history.extend(refunds);
            Ok(order.clone())
        })
    }

    /// Exchange items in a delivered order to new items of the same product type.
    ///
    /// For a delivered order, return or exchange can be only done once by the agent.
    /// The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.
    #[tool(confirm, compensate = undo)]
    fn exchange_delivered_order_items(
        &self,
        /// The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
        order_id: String,
        /// The item ids to be exchanged, each such as '1008292230'. There could be duplicate items in the list.
        item_ids: Vec<String>,
        /// The item ids to be exchanged for, each such as '1008292230'.
        /// There could be duplicate items in the list. Each new item id should match the item id
        /// in the same position and be of the same product.
        new_item_ids: Vec<String>,
        /// The payment method id to pay or receive refund for the item price difference,
        /// such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up
        /// from the user or order details.
        payment_method_id: String,
    ) -> Result<Order, String> {
        self.store
            .write("exchange_delivered_order_items", |db, touched| {
                let order = get_order(db, &order_id)?;
                if order.status != OrderStatus::Delivered {
                    return Err("Non-delivered order cannot be exchanged".into());
                }
                if let Some(missing) = more_than_ordered(order, &item_ids) {
                    return Err(format!("Number of {missing} not found."));
                }
                if item_ids.len() != new_item_ids.len() {
                    return Err("The number of items to be exchanged should match.".into());
                }
                let difference = price_difference(db, order, &item_ids, &new_item_ids, false)?;
                // Python's `round(0, 2)` is the integer 0 when nothing is exchanged.
                let difference = match difference {
                    None => PyNumber::Int(0),
                    Some((difference, _)) => PyNumber::Float(round2(difference)),
                };
                let user_id = order.user_id.clone();
                let method = get_payment_method(db, &user_id, &payment_method_id)?;
                let owed = match difference {
                    PyNumber::Int(zero) => zero as f64,
                    PyNumber::Float(difference) => difference,
                };
                if let PaymentMethod::GiftCard { balance, .. } = method {
                    if *balance < owed {
                        return Err(
                            "Insufficient gift card balance to pay for the price difference".into(),
                        );
                    }
                }
                touched.order(db, &order_id);
                let order = get_order_mut(db, &order_id)?;
                order.status = OrderStatus::ExchangeRequested;
                order.exchange_items = Some(sorted(item_ids));
                order.exchange_new_items = Some(sorted(new_item_ids));
                order.exchange_payment_method_id = Some(payment_method_id);
                order.exchange_price_difference = Some(difference);
                Ok(order.clone())
            })
    }

    /// Find user id by first name, last name, and zip code. If the user is not found, the function
    ///
    /// will return an error message. By default, find user id by email, and only call this function
    /// if the user is not found by email or cannot remember email.
    #[tool]
    fn find_user_id_by_name_zip(
        &self,
        /// The first name of the customer, such as 'John'.
        first_name: String,
        /// The last name of the customer, such as 'Doe'.
        last_name: String,
        /// The zip code of the customer, such as '12345'.
        zip: String,
    ) -> Result<String, String> {
        let (first_name, last_name) = (first_name.to_lowercase(), last_name.to_lowercase());
        self.store.read(|db| {
            db.users
                .iter()
                .find(|(_, user)| {
                    user.name.first_name.to_lowercase() == first_name
                        && user.name.last_name.to_lowercase() == last_name
                        && user.address.zip == zip
                })
                .map(|(id, _)| id.clone())
                .ok_or_else(|| "User not found".to_owned())
        })
    }

    /// Find user id by email. If the user is not found, the function will return an error message.
    #[tool]
    fn find_user_id_by_email(
        &self,
        /// The email of the user, such as 'something@example.com'.
        email: String,
    ) -> Result<String, String> {
        let email = email.to_lowercase();
        self.store.read(|db| {
            db.users
                .iter()
                .find(|(_, user)| user.email.to_lowercase() == email)
                .map(|(id, _)| id.clone())
                .ok_or_else(|| "User not found".to_owned())
        })
    }

    /// Get the status and details of an order.
    #[tool]
    fn get_order_details(
        &self,
        /// The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
        order_id: String,
    ) -> Result<Order, String> {
        self.store.read(|db| get_order(db, &order_id).cloned())
    }

    /// Get the inventory details of a product.
    #[tool]
    fn get_product_details(
        &self,
        /// The product id, such as '6086499569'. Be careful the product id is different from the item id.
        product_id: String,
    ) -> Result<Product, String> {
        self.store.read(|db| get_product(db, &product_id).cloned())
    }

    /// Get the details of a user, including their orders.
    #[tool]
    fn get_user_details(
        &self,
        /// The user id, such as 'sara_doe_496'.
        user_id: String,
    ) -> Result<User, String> {
        self.store.read(|db| get_user(db, &user_id).cloned())
    }

    /// List the name and product id of all product types.
    ///
    /// Each product type has a variety of different items with unique item ids and options.
    /// There are only 50 product types in the store.
    #[tool]
    fn list_all_product_types(&self) -> Result<String, String> {
        self.store.read(|db| {
            // Python's dict: a name met twice keeps its last product id.
            let mut products = Map::new();
            for product in db.products.values() {
                products.insert(
                    product.name.clone(),
                    Value::String(product.product_id.clone()),
                );
            }
            Ok(crate::db_hash::python_json(&Value::Object(products)))
        })
    }

    /// Modify the shipping address of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.
    #[allow(clippy::too_many_arguments)] // τ²'s signature, one argument per field
    #[tool(confirm, compensate = undo)]
    fn modify_pending_order_address(
        &self,
        /// The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
        order_id: String,
        /// The first line of the address, such as '123 Main St'.
        address1: String,
        /// The second line of the address, such as 'Apt 1' or ''.
        address2: String,
        /// The city, such as 'San Francisco'.
        city: String,
        /// The state, such as 'CA'.
        state: String,
        /// The country, such as 'USA'.
        country: String,
        /// The zip code, such as '12345'.
        zip: String,
    ) -> Result<Order, String> {
        self.store
            .write("modify_pending_order_address", |db, touched| {
                if !get_order(db, &order_id)?.status.is_pending() {
                    return Err("Non-pending order cannot be modified".into());
                }
                touched.order(db, &order_id);
                let order = get_order_mut(db, &order_id)?;
                order.address = UserAddress {
                    address1,
                    address2,
                    city,
                    country,
                    state,
                    zip,
                };
                Ok(order.clone())
            })
    }

    /// Modify items in a pending order to new items of the same product type. For a pending order, this function can only be called once. The agent needs to explain the exchange detail and ask for explicit user confirmation (yes/no) to proceed.
    #[tool(confirm, compensate = undo)]
    fn modify_pending_order_items(
        &self,
        /// The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
        order_id: String,
        /// The item ids to be modified, each such as '1008292230'. There could be duplicate items in the list.
        item_ids: Vec<String>,
        /// The item ids to be modified for, each such as '1008292230'. There could be duplicate items in the list. Each new item id should match the item id in the same position and be of the same product.
        new_item_ids: Vec<String>,
        /// The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.
        payment_method_id: String,
    ) -> Result<Order, String> {
        self.store
            .write("modify_pending_order_items", |db, touched| {
                let order = get_order(db, &order_id)?;
                if order.status != OrderStatus::Pending {
                    return Err("Non-pending order cannot be modified".into());
                }
                if let Some(missing) = more_than_ordered(order, &item_ids) {
                    return Err(format!("{missing} not found"));
                }
                if item_ids.len() != new_item_ids.len() {
                    return Err("The number of items to be exchanged should match".into());
                }
                let checked = price_difference(db, order, &item_ids, &new_item_ids, true)?;
                let difference = checked.as_ref().map_or(0.0, |(difference, _)| *difference);
                let user_id = order.user_id.clone();
                if let PaymentMethod::GiftCard { balance, .. } =
                    get_payment_method(db, &user_id, &payment_method_id)?
                {
                    if *balance < difference {
                        return Err("Insufficient gift card balance to pay for the new item".into());
                    }
                }
                touched.order(db, &order_id);
                touched.user(db, &user_id);
                if let PaymentMethod::GiftCard { balance, .. } =
                    get_payment_method(db, &user_id, &payment_method_id)?
                {
                    *balance = round2(*balance - difference);
                }
                let order = get_order_mut(db, &order_id)?;
                order.payment_history.push(OrderPayment {
                    transaction_type: if difference > 0.0 {
                        TransactionType::Payment
                    } else {
                        TransactionType::Refund
                    },
                    amount: difference.abs(),
                    payment_method_id,
                });
                // Every item modified takes the price and options of the *last* new item checked:
                // τ²'s loop reads the variable its checking loop left behind.
                if let Some((_, last)) = checked {
                    for (item_id, new_item_id) in item_ids.iter().zip(&new_item_ids) {
                        let item = order
                            .items
                            .iter_mut()
                            .find(|item| item.item_id == *item_id)
                            .ok_or_else(|| format!("Item {item_id} not found"))?;
                        item.item_id = new_item_id.clone();
                        item.price = last.price;
                        item.options = last.options.clone();
                    }
                }
                order.status = OrderStatus::PendingItemModified;
                Ok(order.clone())
            })
    }

    /// Modify the payment method of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.
    #[tool(confirm, compensate = undo)]
    fn modify_pending_order_payment(
        &self,
        /// The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
        order_id: String,
        /// The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.
        payment_method_id: String,
    ) -> Result<Order, String> {
        self.store
            .write("modify_pending_order_payment", |db, touched| {
                let order = get_order(db, &order_id)?;
                if !order.status.is_pending() {
                    return Err("Non-pending order cannot be modified".into());
                }
                let user_id = order.user_id.clone();
                let is_gift_card = matches!(
                    get_payment_method(db, &user_id, &payment_method_id)?,
                    PaymentMethod::GiftCard { .. }
                );
                let order = get_order(db, &order_id)?;
                let [first] = order.payment_history.as_slice() else {
                    return Err("There should be exactly one payment for a pending order".into());
                };
                if first.transaction_type != TransactionType::Payment {
                    return Err("There should be exactly one payment for a pending order".into());
                }
                if first.payment_method_id == payment_method_id {
                    return Err(
                        "The new payment method should be different from the current one".into(),
                    );
                }
                let (amount, old_method) = (first.amount, first.payment_method_id.clone());
                if let PaymentMethod::GiftCard { balance, .. } =
                    get_payment_method(db, &user_id, &payment_method_id)?
                {
                    if *balance < amount {
                        return Err("Insufficient gift card balance to pay for the order".into());
                    }
                }
                touched.order(db, &order_id);
                touched.user(db, &user_id);
                get_order_mut(db, &order_id)?.payment_history.extend([
                    OrderPayment {
                        transaction_type: TransactionType::Payment,
                        amount,
                        payment_method_id: payment_method_id.clone(),
                    },
                    OrderPayment {
                        transaction_type: TransactionType::Refund,
                        amount,
                        payment_method_id: old_method.clone(),
                    },
                ]);
                if is_gift_card {
                    if let PaymentMethod::GiftCard { balance, .. } =
                        get_payment_method(db, &user_id, &payment_method_id)?
                    {
                        *balance = round2(*balance - amount);
                    }
                }
                // The old method gone from the user fails here, after the change, as in τ².
                if let PaymentMethod::GiftCard { balance, .. } =
                    get_payment_method(db, &user_id, &old_method)?
                {
                    *balance = round2(*balance + amount);
                }
                Ok(get_order(db, &order_id)?.clone())
            })
    }

    /// Modify the default address of a user. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.
    #[allow(clippy::too_many_arguments)] // τ²'s signature, one argument per field
    #[tool(confirm, compensate = undo)]
    fn modify_user_address(
        &self,
        /// The user id, such as 'sara_doe_496'.
        user_id: String,
        /// The first line of the address, such as '123 Main St'.
        address1: String,
        /// The second line of the address, such as 'Apt 1' or ''.
        address2: String,
        /// The city, such as 'San Francisco'.
        city: String,
        /// The state, such as 'CA'.
        state: String,
        /// The country, such as 'USA'.
        country: String,
        /// The zip code, such as '12345'.
        zip: String,
    ) -> Result<User, String> {
        self.store.write("modify_user_address", |db, touched| {
            touched.user(db, &user_id);
            let user = get_user_mut(db, &user_id)?;
            user.address = UserAddress {
                address1,
                address2,
                city,
                country,
                state,
                zip,
            };
            Ok(user.clone())
        })
    }

    /// Return some items of a delivered order.
    ///
    /// The order status will be changed to 'return requested'.
    /// The agent needs to explain the return detail and ask for explicit user confirmation (yes/no) to proceed.
    /// The user will receive follow-up email for how and where to return the item.
    #[tool(confirm, compensate = undo)]
    fn return_delivered_order_items(
        &self,
        /// The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.
        order_id: String,
        /// The item ids to be returned, each such as '1008292230'. There could be duplicate items in the list.
        item_ids: Vec<String>,
        /// The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'.
        /// These can be looked up from the user or order details.
        payment_method_id: String,
    ) -> Result<Order, String> {
        self.store
            .write("return_delivered_order_items", |db, touched| {
                let order = get_order(db, &order_id)?;
                if order.status != OrderStatus::Delivered {
                    return Err("Non-delivered order cannot be returned".into());
                }
                let user_id = get_user(db, &order.user_id)?.user_id.clone();
                let is_gift_card = matches!(
                    get_payment_method(db, &user_id, &payment_method_id)?,
                    PaymentMethod::GiftCard { .. }
                );
                let order = get_order(db, &order_id)?;
                if !is_gift_card {
                    let first = order
                        .payment_history
                        .first()
                        .ok_or("list index out of range")?;
                    if payment_method_id != first.payment_method_id {
                        return Err("Payment method should be the original payment method".into());
                    }
                }
                if more_than_ordered(order, &item_ids).is_some() {
                    return Err("Some item not found".into());
                }
                touched.order(db, &order_id);
                let order = get_order_mut(db, &order_id)?;
                order.status = OrderStatus::ReturnRequested;
                order.return_items = Some(sorted(item_ids));
                order.return_payment_method_id = Some(payment_method_id);
                Ok(order.clone())
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

    /// Every write's compensation: the records the call touched, put back as they were.
    fn undo<Args>(&self, _: Args, output: Value, tool: ToolName) -> Result<(), String> {
        self.store.restore(&tool.0, &output)
    }
}

fn get_order<'a>(db: &'a RetailDb, id: &str) -> Result<&'a Order, String> {
    db.orders
        .get(id)
        .ok_or_else(|| "Order not found".to_owned())
}

fn get_order_mut<'a>(db: &'a mut RetailDb, id: &str) -> Result<&'a mut Order, String> {
    db.orders
        .get_mut(id)
        .ok_or_else(|| "Order not found".to_owned())
}

fn get_user<'a>(db: &'a RetailDb, id: &str) -> Result<&'a User, String> {
    db.users.get(id).ok_or_else(|| "User not found".to_owned())
}

fn get_user_mut<'a>(db: &'a mut RetailDb, id: &str) -> Result<&'a mut User, String> {
    db.users
        .get_mut(id)
        .ok_or_else(|| "User not found".to_owned())
}

fn get_product<'a>(db: &'a RetailDb, id: &str) -> Result<&'a Product, String> {
    db.products
        .get(id)
        .ok_or_else(|| "Product not found".to_owned())
}

fn get_variant<'a>(db: &'a RetailDb, product_id: &str, id: &str) -> Result<&'a Variant, String> {
    get_product(db, product_id)?
        .variants
        .get(id)
        .ok_or_else(|| "Variant not found".to_owned())
}

/// τ²'s `_get_payment_method`: the user first, then their method.
fn get_payment_method<'a>(
    db: &'a mut RetailDb,
    user_id: &str,
    id: &str,
) -> Result<&'a mut PaymentMethod, String> {
    get_user_mut(db, user_id)?
        .payment_methods
        .get_mut(id)
        .ok_or_else(|| "Payment method not found".to_owned())
}

/// The first id of `item_ids` named more often than the order holds it.
fn more_than_ordered<'a>(order: &Order, item_ids: &'a [String]) -> Option<&'a String> {
    item_ids.iter().find(|id| {
        let asked = item_ids.iter().filter(|other| other == id).count();
        let held = order
            .items
            .iter()
            .filter(|item| item.item_id == **id)
            .count();
        asked > held
    })
}

/// τ²'s check of each old and new item, pair by pair, summing new price minus old price in
/// its order (from Python's integer 0, which the first float addition makes `0.0`), with the
/// last variant checked. `None` when there is no pair: the sum is then still the integer 0.
fn price_difference(
    db: &RetailDb,
    order: &Order,
    item_ids: &[String],
    new_item_ids: &[String],
    must_differ: bool,
) -> Result<Option<(f64, Variant)>, String> {
    let mut difference = 0.0;
    let mut last = None;
    for (item_id, new_item_id) in item_ids.iter().zip(new_item_ids) {
        if must_differ && item_id == new_item_id {
            return Err("The new item id should be different from the old item id".into());
        }
        let item = order
            .items
            .iter()
            .find(|item| item.item_id == *item_id)
            .ok_or_else(|| format!("Item {item_id} not found"))?;
        let variant = get_variant(db, &item.product_id, new_item_id)?;
        if !variant.available {
            return Err(format!("New item {new_item_id} not found or available"));
        }
        difference += variant.price - item.price;
        last = Some(variant.clone());
    }
    Ok(last.map(|last| (difference, last)))
}

/// Python's `sorted` of strings: by code point, which is the byte order of UTF-8.
fn sorted(mut ids: Vec<String>) -> Vec<String> {
    ids.sort();
    ids
}
