//! The local API's router on top of `local`: the loopback/Origin guard, the routes of
//! [`super::api`] and [`super::bridge`], the agent's own pages (`fogproof-web`) with their
//! security headers, and [`serve`].

use super::api::{
    Api, accept, account, cancel, challenge, decline, draw, event_stream, game_state, game_stream,
    join_tournament, lobby, play, resign, set_name, setup, tournament, tournaments,
    withdraw_tournament,
};
use super::bridge;
use super::error::LocalError;
use super::hub::Hub;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;
use std::sync::Arc;

// ------------------------------------------------------------------ HTTP

/// Whether a request may be served: from a loopback name, and not from a browser page (module
/// docs).
fn allowed(headers: &HeaderMap, any_host: bool) -> Result<(), String> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if let Some(origin) = headers.get(header::ORIGIN) {
        // The agent's own pages (same origin: `http://` + the Host they were served from) may
        // call it; any other page may not (cross-site request forgery). Browsers set Origin
        // themselves, so a page elsewhere cannot claim to be this one.
        let same = origin.to_str().ok().is_some_and(|o| o == format!("http://{host}"));
        if !same {
            return Err("requests from other web pages (another Origin) are refused".into());
        }
    }
    if any_host {
        return Ok(());
    }
    let name = match host.rsplit_once(':') {
        Some((n, port)) if port.bytes().all(|b| b.is_ascii_digit()) => n,
        _ => host,
    };
    let loopback = name == "localhost"
        || name == "[::1]"
        || name.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback());
    if loopback { Ok(()) } else { Err(format!("host '{host}' is not a loopback name")) }
}

async fn guard(
    State(api): State<Api>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if let Err(why) = allowed(req.headers(), api.any_host) {
        return (StatusCode::FORBIDDEN, Json(json!({ "error": why }))).into_response();
    }
    next.run(req).await
}

/// The lichess-shaped local API over `hub` (module docs). `any_host`: serve requests whatever
/// their `Host` (only when listening beyond loopback on purpose).
pub fn router(hub: Arc<Hub>, any_host: bool) -> axum::Router {
    let api = Api { hub, any_host };
    axum::Router::new()
        .route("/api/account", get(account).post(set_name))
        .route("/api/stream/event", get(event_stream))
        .route("/api/bot/game/stream/{id}", get(game_stream))
        .route("/api/bot/game/{id}", get(game_state))
        .route("/api/bot/game/{id}/move/{text}", post(play))
        .route("/api/bot/game/{id}/setup", post(setup))
        .route("/api/bot/game/{id}/tiebreak", post(setup))
        .route("/api/bot/game/{id}/resign", post(resign))
        .route("/api/bot/game/{id}/draw/{answer}", post(draw))
        // lichess's Board API names, and abort (fogproof has none: a resignation).
        .route("/api/bot/game/{id}/abort", post(resign))
        .route("/api/board/game/stream/{id}", get(game_stream))
        .route("/api/board/game/{id}/move/{text}", post(play))
        .route("/api/board/game/{id}/resign", post(resign))
        .route("/api/board/game/{id}/abort", post(resign))
        .route("/api/board/game/{id}/draw/{answer}", post(draw))
        .route("/api/challenge/{target}", post(challenge))
        .route("/api/challenge/{id}/accept", post(accept))
        .route("/api/challenge/{id}/decline", post(decline))
        .route("/api/challenge/{id}/cancel", post(cancel))
        .route("/api/lobby", get(lobby))
        // The rest of what the lichess-bot bridge calls (bridge.rs).
        .route("/api/token/test", post(bridge::token_test))
        .route("/api/bot/account/upgrade", post(bridge::upgrade))
        .route("/api/account/playing", get(bridge::playing))
        .route("/api/bot/game/{id}/chat", post(bridge::chat))
        .route("/api/bot/online", get(bridge::online))
        .route("/game/export/{id}", get(bridge::export))
        .route("/api/tournament", get(tournaments))
        .route("/api/tournament/{id}", get(tournament))
        .route("/api/tournament/{id}/join", post(join_tournament))
        .route("/api/tournament/{id}/withdraw", post(withdraw_tournament))
        .route("/assets/{*path}", get(web_asset))
        .route("/api/{*rest}", axum::routing::any(api_not_found))
        .fallback(get(web_page))
        .layer(axum::middleware::from_fn_with_state(api.clone(), guard))
        .with_state(api)
}

/// Serves the local API on `listener` until `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    hub: Arc<Hub>,
    any_host: bool,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(hub, any_host)).with_graceful_shutdown(shutdown).await
}

/// A file of the agent's pages (`fogproof-web`), or 404.
async fn web_asset(Path(path): Path<String>) -> Response {
    match fogproof_web::asset(&path) {
        Some(a) => web_response(a),
        None => (StatusCode::NOT_FOUND, Json(json!({ "error": format!("no asset {path}") })))
            .into_response(),
    }
}

/// The content security policy of the agent's pages, as the host's (`server::web`): scripts,
/// styles, images and API calls from the agent only (`'unsafe-inline'` styles for the board's
/// piece positions, `data:` for its SVG backgrounds), and no framing by any site.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
                       img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; \
                       base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

fn web_response(a: fogproof_web::Asset) -> Response {
    (
        [
            (header::CONTENT_TYPE, a.content_type),
            // The pages are the binary's: they change only with it.
            (header::CACHE_CONTROL, "no-cache"),
            // The page drives a key's games: no other site frames it, no file is read as
            // another type than it says, no script but its own runs.
            (header::CONTENT_SECURITY_POLICY, CSP),
            (header::X_FRAME_OPTIONS, "DENY"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "same-origin"),
        ],
        a.bytes,
    )
        .into_response()
}

/// The agent's page at `/` and at every other path that is not the API (the page routes
/// itself: `/game/{id}`, ...).
async fn web_page() -> Response {
    web_response(fogproof_web::agent_page())
}

async fn api_not_found(uri: axum::http::Uri) -> Response {
    LocalError::NotFound(format!("no such call: {}", uri.path())).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().expect("header value"));
        }
        h
    }

    #[test]
    fn only_loopback_names_and_no_browser_pages_are_served() {
        assert!(allowed(&headers(&[("host", "127.0.0.1:8765")]), false).is_ok());
        assert!(allowed(&headers(&[("host", "localhost:8765")]), false).is_ok());
        assert!(allowed(&headers(&[("host", "[::1]:8765")]), false).is_ok());
        // DNS rebinding: a page on evil.example resolving to 127.0.0.1.
        assert!(allowed(&headers(&[("host", "evil.example:8765")]), false).is_err());
        assert!(allowed(&headers(&[("host", "10.0.0.5:8765")]), false).is_err());
        // Cross-site requests carry an Origin, even to a loopback host.
        let page = headers(&[("host", "127.0.0.1:8765"), ("origin", "https://evil.example")]);
        assert!(allowed(&page, false).is_err());
        assert!(allowed(&page, true).is_err(), "never another page, whatever the host");
        // The agent's own page, served from the same origin, may call it.
        let own = headers(&[("host", "127.0.0.1:8765"), ("origin", "http://127.0.0.1:8765")]);
        assert!(allowed(&own, false).is_ok());
        // Another port on loopback is another origin (another local web server's page).
        let other = headers(&[("host", "127.0.0.1:8765"), ("origin", "http://127.0.0.1:3000")]);
        assert!(allowed(&other, false).is_err());
        // DNS rebinding with a matching Origin is still refused by the Host check.
        let rebound =
            headers(&[("host", "evil.example:8765"), ("origin", "http://evil.example:8765")]);
        assert!(allowed(&rebound, false).is_err());
        assert!(allowed(&headers(&[("origin", "null")]), false).is_err());
        assert!(allowed(&headers(&[("host", "10.0.0.5:8765")]), true).is_ok());
    }

    #[tokio::test]
    async fn the_agent_pages_send_the_same_security_headers_as_the_hosts() {
        let page = web_page().await;
        let asset = web_asset(Path("agent.js".to_owned())).await;
        assert_eq!(asset.status(), StatusCode::OK);
        for r in [&page, &asset] {
            let h = r.headers();
            let csp = h.get(header::CONTENT_SECURITY_POLICY).expect("a CSP");
            assert!(csp.to_str().unwrap().contains("frame-ancestors 'none'"), "{csp:?}");
            assert!(csp.to_str().unwrap().contains("script-src 'self'"), "{csp:?}");
            assert_eq!(h.get(header::X_FRAME_OPTIONS).expect("X-Frame-Options"), "DENY");
            assert_eq!(h.get(header::X_CONTENT_TYPE_OPTIONS).expect("nosniff"), "nosniff");
        }
        assert!(
            page.headers()[header::CONTENT_TYPE].to_str().unwrap().starts_with("text/html"),
            "the page itself"
        );
    }
}
