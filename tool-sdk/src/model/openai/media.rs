//! How a tool result's images and files reach a model over Chat Completions, whose tool
//! messages take text only.

/// How an [`OpenAiCompatibleModel`](super::OpenAiCompatibleModel) sends the images and files of
/// a tool result ([`ToolResultMessage::parts`](crate::model::ToolResultMessage::parts)): a Chat
/// Completions tool message takes text only, so they cannot go where Anthropic and Gemini put
/// them. Either way the tool message reads the result's text with a placeholder for each
/// image or file (`[image (image/png)]`).
///
/// # Examples
///
/// ```
/// use tool_sdk::model::openai::{MediaFallback, OpenAiCompatibleModel};
///
/// let model = OpenAiCompatibleModel::builder()
///     .with_base_url("http://localhost:11434/v1")
///     .with_model("llava")
///     .with_media_fallback(MediaFallback::UserMessage)
///     .build()?;
/// # Ok::<(), tool_sdk::model::ModelError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum MediaFallback {
    /// The placeholders alone: nothing else is sent. The default, since every server that
    /// speaks the API takes it, vision or not.
    #[default]
    Placeholder,
    /// After the tool messages of a reply, a user message carries their images (as `image_url`
    /// parts with `data:` URLs) and files (as `file` parts), each introduced by a line naming
    /// the call it came from: for vision models.
    UserMessage,
}
