//! What a tool returns beyond text: images and files, each with its media type, as parts of
//! its output in the order the tool gave them.

use std::fmt::Write as _;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};

/// Binary content and its media type (`image/png`, `application/pdf`, ...), kept
/// base64-encoded: every provider and MCP carry it so, and a stored conversation stays JSON.
///
/// # Examples
///
/// ```
/// use tool_sdk::define::Media;
///
/// let png = Media::from_bytes("image/png", [0x89, b'P', b'N', b'G']);
/// assert_eq!(png.data(), "iVBORw==");
/// assert_eq!(png.data_url(), "data:image/png;base64,iVBORw==");
/// assert!(Media::from_base64("image/png", "not base64!").is_none());
/// assert!(Media::from_base64("png", "iVBORw==").is_none(), "a media type is type/subtype");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Unchecked")]
pub struct Media {
    media_type: String,
    data: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

/// Media as read, checked before it is taken (a stored conversation may have been edited).
#[derive(Deserialize)]
struct Unchecked {
    media_type: String,
    data: String,
    #[serde(default)]
    name: Option<String>,
}

impl TryFrom<Unchecked> for Media {
    type Error = &'static str;

    fn try_from(read: Unchecked) -> Result<Self, Self::Error> {
        let media = Media::from_base64(read.media_type, read.data)
            .ok_or("media needs a type/subtype media type and standard, padded base64 data")?;
        Ok(match read.name {
            Some(name) => media.with_name(name),
            None => media,
        })
    }
}

impl Media {
    /// `bytes` of type `media_type`, encoded here.
    pub fn from_bytes(media_type: impl Into<String>, bytes: impl AsRef<[u8]>) -> Self {
        Self {
            media_type: media_type.into(),
            data: STANDARD.encode(bytes),
            name: None,
        }
    }

    /// Content already base64-encoded (standard alphabet, padded), as MCP servers and
    /// providers send it; `None` when `data` is not that or `media_type` is not
    /// `type/subtype`, so what is kept can always be sent on.
    pub fn from_base64(media_type: impl Into<String>, data: impl Into<String>) -> Option<Self> {
        let (media_type, data) = (media_type.into(), data.into());
        let well_formed = media_type
            .split_once('/')
            .is_some_and(|(kind, subtype)| !kind.is_empty() && !subtype.is_empty());
        (well_formed && STANDARD.decode(&data).is_ok()).then_some(Self {
            media_type,
            data,
            name: None,
        })
    }

    /// Names the content (a file name, such as `report.pdf`), for the APIs that show one.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The media type, such as `image/png`.
    pub fn media_type(&self) -> &str {
        &self.media_type
    }

    /// The content, base64-encoded.
    pub fn data(&self) -> &str {
        &self.data
    }

    /// The name given with [`with_name`](Self::with_name).
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The content as a `data:` URL, as OpenAI's APIs take an image or a file.
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.media_type, self.data)
    }
}

/// One part of a tool's output.
///
/// A model whose API takes images or files in a tool result gets them there; one whose API
/// takes text only reads [`placeholder`](Part::placeholder)s instead, or gets the media another
/// way its model client documents (see `model::openai::MediaFallback`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Part {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// A serialized JSON value.
    Json {
        /// The JSON text.
        json: String,
    },
    /// An image (`image/png`, `image/jpeg`, ...).
    Image(Media),
    /// A file of any other type (`application/pdf`, `audio/wav`, ...).
    File(Media),
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// A part holding `json`, a serialized JSON value.
    pub fn json(json: impl Into<String>) -> Self {
        Self::Json { json: json.into() }
    }

    /// An image of type `media_type` (such as `image/png`) made of `bytes`.
    pub fn image(media_type: impl Into<String>, bytes: impl AsRef<[u8]>) -> Self {
        Self::Image(Media::from_bytes(media_type, bytes))
    }

    /// A file of type `media_type` (such as `application/pdf`) made of `bytes`, named `name`.
    pub fn file(
        media_type: impl Into<String>,
        name: impl Into<String>,
        bytes: impl AsRef<[u8]>,
    ) -> Self {
        Self::File(Media::from_bytes(media_type, bytes).with_name(name))
    }

    /// The text of a text or JSON part.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text { text } => Some(text),
            Self::Json { json } => Some(json),
            Self::Image(_) | Self::File(_) => None,
        }
    }

    /// The media of an image or a file.
    pub fn as_media(&self) -> Option<&Media> {
        match self {
            Self::Image(media) | Self::File(media) => Some(media),
            Self::Text { .. } | Self::Json { .. } => None,
        }
    }

    /// What a model that reads text only is shown for an image or a file:
    /// `[image (image/png)]`, `[file report.pdf (application/pdf)]`.
    pub fn placeholder(&self) -> Option<String> {
        let (kind, media) = match self {
            Self::Image(media) => ("image", media),
            Self::File(media) => ("file", media),
            Self::Text { .. } | Self::Json { .. } => return None,
        };
        let mut shown = String::from("[");
        shown.push_str(kind);
        if let Some(name) = media.name() {
            let _ = write!(shown, " {name}");
        }
        let _ = write!(shown, " ({})]", media.media_type());
        Some(shown)
    }
}

/// The text a model that reads text only is given for `parts`: each text as it is, each image
/// or file as its placeholder, one per line.
pub fn parts_text(parts: &[Part]) -> String {
    let mut text = String::new();
    for part in parts {
        if !text.is_empty() {
            text.push('\n');
        }
        match part.as_text() {
            Some(part) => text.push_str(part),
            None => text.push_str(&part.placeholder().unwrap_or_default()),
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_read_as_text_with_placeholders_for_media() {
        let parts = [
            Part::text("The chart:"),
            Part::image("image/png", [1, 2, 3]),
            Part::file("application/pdf", "q3.pdf", b"%PDF"),
            Part::json("{\"total\":3}"),
        ];
        assert_eq!(
            parts_text(&parts),
            "The chart:\n[image (image/png)]\n[file q3.pdf (application/pdf)]\n{\"total\":3}"
        );
    }

    #[test]
    fn parts_keep_their_kind_and_media_through_json() {
        let parts = vec![
            Part::text("a"),
            Part::image("image/png", [1, 2, 3]),
            Part::file("application/pdf", "q3.pdf", b"%PDF"),
        ];
        let written = serde_json::to_value(&parts).unwrap();
        assert_eq!(
            written[1],
            serde_json::json!({"type": "image", "media_type": "image/png", "data": "AQID"})
        );
        assert_eq!(written[2]["name"], "q3.pdf");
        let read: Vec<Part> = serde_json::from_value(written).unwrap();
        assert_eq!(read, parts);
    }

    #[test]
    fn base64_is_checked_when_taken_as_it_is() {
        assert!(Media::from_base64("image/png", "AQID").is_some());
        assert!(Media::from_base64("image/png", "AQI").is_none(), "unpadded");
        assert!(Media::from_base64("image/", "AQID").is_none());
        let edited = serde_json::json!({"type": "image", "media_type": "image/png", "data": "%%"});
        assert!(serde_json::from_value::<Part>(edited).is_err());
    }
}
