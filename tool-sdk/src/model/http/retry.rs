//! When a failed request is tried again, and after how long.

use std::time::Duration;

use reqwest::header::{HeaderMap, RETRY_AFTER};

/// When and how often a failed request is tried again.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RetryPolicy {
    pub(crate) max_retries: u32,
    pub(crate) initial_backoff: Duration,
    pub(crate) max_backoff: Duration,
    pub(crate) max_retry_after: Duration,
}

impl RetryPolicy {
    /// The wait before retry number `retry` (0 for the first): what the server asked for,
    /// capped, else the exponential backoff less up to a quarter at random, so clients that
    /// failed together do not all come back together.
    pub(crate) fn delay(&self, retry: u32, asked: Option<Duration>) -> Duration {
        if let Some(asked) = asked {
            return asked.min(self.max_retry_after);
        }
        let factor = 1u32.checked_shl(retry).unwrap_or(u32::MAX);
        let backoff = self
            .initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff);
        let random = f64::from(getrandom::u32().unwrap_or(0)) / f64::from(u32::MAX);
        // A backoff near `Duration::MAX` (a setting) cannot be scaled: it is waited as it is.
        Duration::try_from_secs_f64(backoff.as_secs_f64() * (1.0 - 0.25 * random))
            .unwrap_or(backoff)
    }
}

/// The wait a server asks for: `retry-after-ms` (OpenAI), else `Retry-After` in seconds. A
/// `Retry-After` date is not read: the backoff applies.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| {
        headers
            .get(name)?
            .to_str()
            .ok()?
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|value| value.is_finite() && *value >= 0.0)
    };
    if let Some(millis) = number("retry-after-ms") {
        return Duration::try_from_secs_f64(millis / 1000.0).ok();
    }
    number(RETRY_AFTER.as_str()).and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    fn policy() -> RetryPolicy {
        RetryPolicy {
            max_retries: 5,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(1),
            max_retry_after: Duration::from_secs(10),
        }
    }

    #[test]
    fn the_backoff_doubles_with_jitter_up_to_its_cap() {
        let policy = policy();
        for (retry, full) in [
            (0, 100),
            (1, 200),
            (2, 400),
            (3, 800),
            (4, 1000),
            (40, 1000),
        ] {
            let full = Duration::from_millis(full);
            for _ in 0..20 {
                let delay = policy.delay(retry, None);
                assert!(
                    delay <= full && delay >= full.mul_f64(0.75),
                    "{retry}: {delay:?}"
                );
            }
        }
    }

    #[test]
    fn the_wait_a_server_asks_for_is_honoured_up_to_the_cap() {
        let policy = policy();
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(3))),
            Duration::from_secs(3)
        );
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(3600))),
            Duration::from_secs(10)
        );
    }

    #[test]
    fn retry_after_headers_are_read() {
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut map = HeaderMap::new();
            for (name, value) in pairs {
                map.insert(*name, HeaderValue::from_static(value));
            }
            map
        };
        assert_eq!(
            retry_after(&headers(&[("retry-after", "2")])),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "0.5")])),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "7"), ("retry-after-ms", "250")])),
            Some(Duration::from_millis(250)),
            "the finer header wins"
        );
        for unread in ["Wed, 21 Oct 2015 07:28:00 GMT", "-1", "NaN", ""] {
            assert_eq!(
                retry_after(&headers(&[("retry-after", unread)])),
                None,
                "{unread}"
            );
        }
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }
}
