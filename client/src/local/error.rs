//! Why a call to the hub or the local API was refused ([`LocalError`]), and the HTTP status
//! each answer gets. At the bottom of `local`: everything else may use it.

use crate::agent::AgentError;
use crate::net::NetError;
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use thiserror::Error;

/// Why a call to the hub was refused.
#[derive(Debug, Error)]
pub enum LocalError {
    /// No such game or challenge here.
    #[error("{0}")]
    NotFound(String),
    /// The request is wrong: a move not offered, a setup the rules refuse, bad JSON.
    #[error("{0}")]
    Bad(String),
    /// Not now: nothing is asked, or the game is over.
    #[error("{0}")]
    Conflict(String),
    /// The server refused or could not be reached.
    #[error(transparent)]
    Net(#[from] NetError),
    /// The agent refused (its journal, or terms).
    #[error(transparent)]
    Agent(#[from] AgentError),
}

impl LocalError {
    fn status(&self) -> StatusCode {
        match self {
            LocalError::NotFound(_) => StatusCode::NOT_FOUND,
            LocalError::Bad(_) => StatusCode::BAD_REQUEST,
            LocalError::Conflict(_) => StatusCode::CONFLICT,
            LocalError::Net(NetError::Refused { status, .. }) => {
                StatusCode::from_u16(*status).unwrap_or(StatusCode::BAD_GATEWAY)
            }
            LocalError::Net(_) | LocalError::Agent(_) => StatusCode::BAD_GATEWAY,
        }
    }
}

impl IntoResponse for LocalError {
    fn into_response(self) -> Response {
        (self.status(), Json(json!({ "error": self.to_string() }))).into_response()
    }
}
