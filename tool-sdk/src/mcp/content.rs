//! One part of a tool's output as an MCP content block, and back.
//!
//! | part | content block |
//! |---|---|
//! | text, JSON | `text` |
//! | image | `image` (base64 `data`, `mimeType`) |
//! | file of type `audio/*` | `audio` |
//! | any other file | `resource`: an embedded `blob` under [`file_uri`] |
//!
//! MCP's image and audio blocks carry no name, so a name given to an image or an audio file
//! stays on this side. Back from a server, an embedded text resource and a resource link are
//! text (the link naming its URI), and media whose data is not base64 is a text saying so.

use rmcp::model::{ContentBlock, ResourceContents};

use super::file_uri::{file_uri, name_from_uri};
use crate::define::{Media, Part};

/// The media type of an embedded blob that states none (RFC 2046: arbitrary bytes).
const UNKNOWN_MEDIA_TYPE: &str = "application/octet-stream";

/// The block `part` is served as.
pub(crate) fn part_block(part: Part) -> ContentBlock {
    match part {
        Part::Text { text } => ContentBlock::text(text),
        Part::Json { json } => ContentBlock::text(json),
        Part::Image(media) => ContentBlock::image(media.data(), media.media_type()),
        Part::File(media) if media.media_type().starts_with("audio/") => {
            ContentBlock::audio(media.data(), media.media_type())
        }
        Part::File(media) => ContentBlock::resource(
            ResourceContents::blob(media.data(), file_uri(media.name()))
                .with_mime_type(media.media_type()),
        ),
    }
}

/// The part a server's `block` is kept as.
pub(crate) fn block_part(block: ContentBlock) -> Part {
    match block {
        ContentBlock::Text(text) => Part::text(text.text),
        ContentBlock::Image(image) => media_part("image", image.mime_type, image.data, None)
            .map_or_else(|refused| refused, Part::Image),
        ContentBlock::Audio(audio) => media_part("audio", audio.mime_type, audio.data, None)
            .map_or_else(|refused| refused, Part::File),
        ContentBlock::Resource(embedded) => match embedded.resource {
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => {
                let media_type = mime_type.unwrap_or_else(|| UNKNOWN_MEDIA_TYPE.to_owned());
                media_part("file", media_type, blob, name_from_uri(&uri))
                    .map_or_else(|refused| refused, Part::File)
            }
            ResourceContents::TextResourceContents { text, .. } => Part::text(text),
            _ => Part::text("[embedded resource of a kind this client does not know]"),
        },
        ContentBlock::ResourceLink(link) => Part::text(format!("[resource {}]", link.uri)),
        _ => Part::text("[content of a kind this client does not know]"),
    }
}

/// `data` of `media_type` as media named `name`, or the text part the model reads instead
/// when it is not base64 (or the type is not `type/subtype`): the content cannot be sent on,
/// and dropping it silently would leave the model guessing.
fn media_part(
    kind: &str,
    media_type: String,
    data: String,
    name: Option<String>,
) -> Result<Media, Part> {
    match Media::from_base64(media_type.clone(), data) {
        Some(media) => Ok(match name {
            Some(name) => media.with_name(name),
            None => media,
        }),
        None => Err(Part::text(format!(
            "[{kind} ({media_type}) left out: the server sent data that is not base64, or no \
             type/subtype]"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::Resource;

    use super::*;

    #[test]
    fn each_part_is_the_block_mcp_has_for_it() {
        let block = part_block(Part::image("image/png", [1, 2, 3]));
        let image = block.as_image().expect("an image block");
        assert_eq!(
            (image.data.as_str(), image.mime_type.as_str()),
            ("AQID", "image/png")
        );

        let ContentBlock::Audio(audio) = part_block(Part::file("audio/wav", "a.wav", [1, 2, 3]))
        else {
            panic!("audio is an audio block");
        };
        assert_eq!(
            (audio.data.as_str(), audio.mime_type.as_str()),
            ("AQID", "audio/wav")
        );

        let block = part_block(Part::file("application/pdf", "Q3 report.pdf", b"%PDF"));
        let wire = serde_json::to_value(&block).expect("serializable");
        assert_eq!(
            wire,
            serde_json::json!({"type": "resource", "resource": {
                "uri": "tool-sdk://files/Q3%20report.pdf",
                "mimeType": "application/pdf",
                "blob": "JVBERg==",
            }})
        );

        let json = part_block(Part::json(r#"{"a":1}"#));
        assert_eq!(json.as_text().map(|t| t.text.as_str()), Some(r#"{"a":1}"#));
    }

    #[test]
    fn blocks_are_kept_as_parts() {
        let parts = [
            Part::text("a"),
            Part::image("image/png", [1, 2, 3]),
            Part::file("audio/wav", "x", [4]),
            Part::file("application/pdf", "q3.pdf", b"%PDF"),
            Part::File(Media::from_bytes("application/zip", [5])),
        ];
        let back: Vec<Part> = parts
            .iter()
            .cloned()
            .map(part_block)
            .map(block_part)
            .collect();
        // Audio blocks carry no name.
        let mut expected = parts.to_vec();
        expected[2] = Part::File(Media::from_bytes("audio/wav", [4]));
        assert_eq!(back, expected);
    }

    #[test]
    fn a_servers_other_blocks_become_text() {
        let text = block_part(ContentBlock::embedded_text("file:///notes.md", "# Notes"));
        assert_eq!(text, Part::text("# Notes"));

        let link = Resource::new("file:///big.csv", "big.csv");
        let link = block_part(ContentBlock::resource_link(link));
        assert_eq!(link, Part::text("[resource file:///big.csv]"));

        let blob = ContentBlock::resource(ResourceContents::blob("AQID", "s3://b/k/data.bin"));
        let Part::File(media) = block_part(blob) else {
            panic!("a blob is a file");
        };
        assert_eq!(media.media_type(), "application/octet-stream");
        assert_eq!(media.name(), Some("data.bin"));
    }

    #[test]
    fn media_that_is_not_base64_is_a_text_saying_so() {
        let part = block_part(ContentBlock::image("not base64!", "image/png"));
        let text = part.as_text().expect("a text part");
        assert!(text.starts_with("[image (image/png) left out"), "{text}");
        let part = block_part(ContentBlock::audio("AQID", "wav"));
        assert!(part
            .as_text()
            .is_some_and(|t| t.contains("no type/subtype")));
        let blob = ContentBlock::resource(ResourceContents::blob("%%", "x://h/a.pdf"));
        let text = block_part(blob);
        assert!(
            text.as_text().is_some_and(|t| t.starts_with("[file (")),
            "{text:?}"
        );
    }
}
