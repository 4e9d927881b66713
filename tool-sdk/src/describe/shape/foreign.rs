//! [`Described`] for the types of other crates that schemars describes (the standard library's
//! addresses and times; with the features `chrono`, `uuid` and `url`, those crates' types): a
//! user cannot derive it for them, so the runtime crate describes them, keyword for keyword as
//! schemars 1 does.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::time::{Duration, SystemTime};

use crate::describe::shape::described::Described;
use crate::describe::shape::tree::{Definition, Keyword, Shape};

/// `{"type": "string", "format": format}`.
macro_rules! string {
    ($format:expr) => {
        Shape::Schema(&[
            (Keyword::Type, Shape::Str("string")),
            (Keyword::Format, Shape::Str($format)),
        ])
    };
}

/// Types schemars describes as a string, with their format.
macro_rules! strings {
    ($($ty:ty => $format:expr;)*) => {
        $(impl Described for $ty {
            const SHAPE: Shape = string!($format);
        })*
    };
}

strings! {
    IpAddr => "ip";
    Ipv4Addr => "ipv4";
    Ipv6Addr => "ipv6";
}

/// Socket addresses: a string, without a format.
macro_rules! plain_strings {
    ($($ty:ty),*) => {
        $(impl Described for $ty {
            const SHAPE: Shape = Shape::Schema(&[(Keyword::Type, Shape::Str("string"))]);
        })*
    };
}

plain_strings!(SocketAddr, SocketAddrV4, SocketAddrV6);

/// A struct of seconds and nanoseconds, as schemars names it in `$defs`.
macro_rules! times {
    ($($ty:ty => $name:literal ($secs:literal, $nanos:literal);)*) => {
        $(impl Described for $ty {
            const SHAPE: Shape = Shape::Schema(&[(
                Keyword::Ref,
                Shape::Ref(&Definition {
                    name: $name,
                    schema: Shape::Schema(&[
                        (Keyword::Type, Shape::Str("object")),
                        (Keyword::Required, Shape::List(&[Shape::Str($secs), Shape::Str($nanos)])),
                        (
                            Keyword::Properties,
                            Shape::Names(&[
                                ($secs, <u64 as Described>::SHAPE),
                                ($nanos, <u32 as Described>::SHAPE),
                            ]),
                        ),
                    ]),
                }),
            )]);
        })*
    };
}

times! {
    Duration => "Duration" ("secs", "nanos");
    SystemTime => "SystemTime" ("secs_since_epoch", "nanos_since_epoch");
}

#[cfg(feature = "chrono")]
mod chrono_types {
    use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, TimeZone, Weekday};

    use super::{Described, Keyword, Shape};

    strings! {
        NaiveDate => "date";
        NaiveDateTime => "partial-date-time";
        NaiveTime => "partial-time";
    }

    impl<Tz: TimeZone> Described for DateTime<Tz> {
        const SHAPE: Shape = string!("date-time");
    }

    impl Described for Weekday {
        const SHAPE: Shape = Shape::Schema(&[
            (Keyword::Type, Shape::Str("string")),
            (
                Keyword::Enum,
                Shape::List(&[
                    Shape::Str("Mon"),
                    Shape::Str("Tue"),
                    Shape::Str("Wed"),
                    Shape::Str("Thu"),
                    Shape::Str("Fri"),
                    Shape::Str("Sat"),
                    Shape::Str("Sun"),
                ]),
            ),
        ]);
    }

    impl Described for TimeDelta {
        const SHAPE: Shape = Shape::Schema(&[
            (Keyword::Type, Shape::Str("array")),
            (
                Keyword::PrefixItems,
                Shape::List(&[
                    Shape::Schema(&[
                        (Keyword::Type, Shape::Str("integer")),
                        (Keyword::Format, Shape::Str("int64")),
                    ]),
                    Shape::Schema(&[
                        (Keyword::Type, Shape::Str("integer")),
                        (Keyword::Minimum, Shape::Int(0)),
                        (Keyword::ExclusiveMaximum, Shape::Int(1_000_000_000)),
                    ]),
                ]),
            ),
            (Keyword::MinItems, Shape::Int(2)),
            (Keyword::MaxItems, Shape::Int(2)),
        ]);
    }
}

#[cfg(feature = "uuid")]
strings! {
    uuid::Uuid => "uuid";
}

#[cfg(feature = "url")]
strings! {
    url::Url => "uri";
}
