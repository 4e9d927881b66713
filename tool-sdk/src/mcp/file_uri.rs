//! The URI a served file is embedded under, and the name a consumed resource's URI gives.
//!
//! MCP embeds a file as a resource, which needs a URI. A file a tool returns has no address
//! anyone could fetch, so the server names it under a scheme of its own,
//! `tool-sdk://files/NAME` (the file's name percent-encoded; `tool-sdk://files/` when it has
//! none): a host that tries to resolve it fails plainly instead of reaching something else,
//! and the name comes back out of it as out of any other URI.

use std::fmt::Write as _;

/// Where every served file is embedded; the file's name follows.
pub(crate) const FILE_URI_PREFIX: &str = "tool-sdk://files/";

/// The URI a file named `name` is embedded under.
pub(crate) fn file_uri(name: Option<&str>) -> String {
    let mut uri = String::from(FILE_URI_PREFIX);
    for byte in name.unwrap_or_default().bytes() {
        // RFC 3986's unreserved characters stay as they are; anything else (`/` included, so
        // the name stays one segment) is escaped.
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            uri.push(char::from(byte));
        } else {
            let _ = write!(uri, "%{byte:02X}");
        }
    }
    uri
}

/// The last segment of `uri`'s path, percent-decoded: `report.pdf` for
/// `file:///tmp/report.pdf` or `https://host/report.pdf?v=2`; `None` when the path is empty
/// or ends with `/`. An escape that does not decode to UTF-8 is kept as written.
pub(crate) fn name_from_uri(uri: &str) -> Option<String> {
    let end = uri.find(['?', '#']).unwrap_or(uri.len());
    let uri = &uri[..end];
    // The scheme, then the authority if any: neither is part of the path.
    let rest = match uri.split_once(':') {
        Some((scheme, rest)) if is_scheme(scheme) => rest,
        _ => uri,
    };
    let path = match rest.strip_prefix("//") {
        Some(authority_and_path) => authority_and_path
            .find('/')
            .map_or("", |slash| &authority_and_path[slash..]),
        None => rest,
    };
    let segment = path.rsplit('/').next().unwrap_or_default();
    (!segment.is_empty()).then(|| percent_decode(segment))
}

/// Whether `text` is a URI scheme (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`).
fn is_scheme(text: &str) -> bool {
    let mut bytes = text.bytes();
    bytes
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic())
        && bytes.all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'-' | b'.'))
}

fn percent_decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let escaped = (bytes[index] == b'%')
            .then(|| bytes.get(index + 1..index + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                index += 3;
            }
            None => {
                decoded.push(bytes[index]);
                index += 1;
            }
        }
    }
    String::from_utf8(decoded).unwrap_or_else(|_| segment.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_files_name_comes_back_out_of_its_uri() {
        for name in ["report.pdf", "Q3 sales/€.csv", "100%.txt", "~a_b-c"] {
            let uri = file_uri(Some(name));
            assert!(uri.starts_with(FILE_URI_PREFIX), "{uri}");
            assert_eq!(uri.matches('/').count(), 3, "one segment: {uri}");
            assert_eq!(name_from_uri(&uri).as_deref(), Some(name), "{uri}");
        }
        assert_eq!(file_uri(None), "tool-sdk://files/");
        assert_eq!(name_from_uri(&file_uri(None)), None);
        assert_eq!(name_from_uri(&file_uri(Some(""))), None);
    }

    #[test]
    fn other_servers_uris_give_their_last_segment() {
        let name = |uri| name_from_uri(uri);
        assert_eq!(
            name("file:///tmp/report.pdf").as_deref(),
            Some("report.pdf")
        );
        assert_eq!(
            name("https://host/a/b.png?v=2#top").as_deref(),
            Some("b.png")
        );
        assert_eq!(name("memory://abc"), None, "a host is not a name");
        assert_eq!(name("https://host/dir/"), None);
        assert_eq!(
            name("urn:isbn:0451450523").as_deref(),
            Some("isbn:0451450523")
        );
        assert_eq!(name("notes/todo.md").as_deref(), Some("todo.md"));
        // Escapes that do not decode, or not to UTF-8, stay as written.
        assert_eq!(name("s://h/%zz%4").as_deref(), Some("%zz%4"));
        assert_eq!(name("s://h/%FF").as_deref(), Some("%FF"));
        assert_eq!(name(""), None);
    }
}
