//! The API's error, at the bottom of the server's modules: a status and a sentence, shown as
//! JSON `{"error": "..."}` (docs/SERVER.md, API). Domain modules return it; `crate::http`
//! serves it.

use crate::admission::Busy;
use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use protocol::MatchId;

/// An API error: a status and a sentence.
#[derive(Debug)]
pub struct AppError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What is wrong.
    pub message: String,
    /// Seconds after which to try again (`Retry-After`), for a `503` of a limit that frees.
    pub retry_after_s: Option<u32>,
}

impl AppError {
    /// An error with this status.
    pub fn new(status: StatusCode, message: impl Into<String>) -> AppError {
        AppError { status, message: message.into(), retry_after_s: None }
    }

    /// A `503 Service Unavailable` with `Retry-After: retry_after_s`.
    pub fn busy(message: impl Into<String>, retry_after_s: u32) -> AppError {
        AppError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: message.into(),
            retry_after_s: Some(retry_after_s),
        }
    }

    /// A `400 Bad Request`.
    pub fn bad(message: impl Into<String>) -> AppError {
        AppError::new(StatusCode::BAD_REQUEST, message)
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let mut r = (self.status, Json(ErrorBody { error: self.message })).into_response();
        if let Some(s) = self.retry_after_s {
            r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        r
    }
}

/// An error's JSON: the sentence naming what is wrong (any route, with a fitting status).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export_to = "host/"))]
pub struct ErrorBody {
    /// What is wrong.
    pub error: String,
}

impl From<Busy> for AppError {
    fn from(b: Busy) -> AppError {
        AppError::busy(b.message, b.retry_after_s)
    }
}

/// A result whose error is an [`AppError`].
pub type ApiResult<T> = Result<T, AppError>;

/// A `500`, logged.
pub fn internal(e: impl std::fmt::Display) -> AppError {
    tracing::error!(error = %e, "internal error");
    AppError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
}

/// A match id from its 64 hex digits.
pub fn parse_match_id(text: &str) -> ApiResult<MatchId> {
    protocol::hex::decode_array::<32>(text)
        .map(MatchId)
        .ok_or_else(|| AppError::bad("match id: expected 64 hex digits"))
}
