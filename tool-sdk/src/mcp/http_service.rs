//! The HTTP service of a served registry: rmcp's streamable HTTP service, with what it gets
//! wrong at the edges put right. A body it cannot read as a JSON-RPC message (malformed
//! JSON, other JSON, a batch) gets a JSON-RPC error instead of a plain-text `415`; the end
//! of a session gets `200` instead of `202`, which the Python and TypeScript SDKs take for a
//! failure.

use std::convert::Infallible;
use std::fmt::{self, Display};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::{header, HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Bytes};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::StreamableHttpService;

use super::kept_body::{Kept, KeptBody};
use super::rejection::reject;
use super::server::Handler;
use super::sessions::Bounded;
use super::{McpHttpSettings, McpServer};

/// How rmcp's plain-text answer to a body it could not read as a message begins.
const UNREADABLE_BODY: &[u8] = b"fail to deserialize request body";

/// What the service answers with.
pub type McpHttpResponse = Response<BoxBody<Bytes, Infallible>>;

/// [`McpServer`] as a tower `Service` of MCP's streamable HTTP transport; see
/// [`McpServer::into_http_service`].
#[derive(Clone)]
pub struct McpHttpService {
    inner: StreamableHttpService<Handler, Bounded<LocalSessionManager>>,
    max_body: usize,
}

impl McpHttpService {
    pub(super) fn new(server: McpServer, settings: &McpHttpSettings) -> Self {
        let config = settings.to_rmcp();
        let max_body = config.max_request_body_bytes;
        let handler = server.handler();
        let inner = StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::new(Bounded::new(
                LocalSessionManager::default(),
                settings.max_sessions(),
            )),
            config,
        );
        Self { inner, max_body }
    }
}

impl fmt::Debug for McpHttpService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpHttpService")
            .field("max_body", &self.max_body)
            .finish_non_exhaustive()
    }
}

impl<B> tower_service::Service<Request<B>> for McpHttpService
where
    B: Body<Data = Bytes> + Send + Unpin + 'static,
    B::Error: Display,
{
    type Response = McpHttpResponse;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<McpHttpResponse, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let mut inner = self.inner.clone();
        let method = request.method().clone();
        let (request, kept) = {
            let (parts, body) = request.into_parts();
            let (body, kept) = KeptBody::new(body, self.max_body);
            (Request::from_parts(parts, body), kept)
        };
        Box::pin(async move {
            let response = match inner.call(request).await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            Ok(match method {
                Method::POST if response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE => {
                    unreadable_body(response, &kept).await
                }
                Method::DELETE if response.status() == StatusCode::ACCEPTED => {
                    let (mut parts, body) = response.into_parts();
                    parts.status = StatusCode::OK;
                    Response::from_parts(parts, body)
                }
                _ => response,
            })
        })
    }
}

/// rmcp's `415` for a body it could not read as a message, as the JSON-RPC error JSON-RPC
/// asks for, with `400`; any other `415` (a wrong `Content-Type`) as it is.
async fn unreadable_body(response: McpHttpResponse, kept: &Kept) -> McpHttpResponse {
    let (parts, body) = response.into_parts();
    let text = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(never) => match never {},
    };
    let rebuilt = |text: Bytes| Response::from_parts(parts, Full::new(text).boxed());
    if !text.starts_with(UNREADABLE_BODY) {
        return rebuilt(text);
    }
    let Some(body) = kept.whole() else {
        return rebuilt(text);
    };
    let Err(error) = serde_json::from_slice::<ClientJsonRpcMessage>(&body) else {
        return rebuilt(text);
    };
    let mut response = Response::new(Full::new(Bytes::from(reject(&body, &error).answer)).boxed());
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
