//! The host's web site over real sockets (127.0.0.1, port 0): every page path answers the
//! embedded `host.html` with its content security policy, `/assets/*` the bundle's bytes with
//! their type and a working ETag, and nothing shadows the JSON API: an unknown API path, asset
//! or method gets a JSON error naming it.

use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A started server and its base address.
async fn start(name: &str) -> (server::Running, std::net::SocketAddr, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("fogproof-web-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = server::Config::new(dir.join("server"), protocol::Identity::from_seed(&[5; 32]));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let running = server::start(config, listener, Arc::new(server::clock::TokioClock::system()))
        .await
        .expect("server starts");
    let addr = running.addr;
    (running, addr, dir)
}

/// One HTTP/1.1 request: the status, the headers (lower-case names) and the body.
async fn request(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    extra: &str,
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{extra}Content-Length: 0\r\n\r\n"
    );
    s.write_all(head.as_bytes()).await.expect("write");
    let mut all = Vec::new();
    s.read_to_end(&mut all).await.expect("read");
    let at = all.windows(4).position(|w| w == b"\r\n\r\n").expect("end of headers") + 4;
    let text = String::from_utf8_lossy(&all[..at]).into_owned();
    let mut lines = text.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    assert!(
        !headers.iter().any(|(k, v)| k == "transfer-encoding" && v.contains("chunked")),
        "the site's answers have a length"
    );
    (status, headers, all[at..].to_vec())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn json(body: &[u8]) -> serde_json::Value {
    serde_json::from_slice(body).expect("a JSON body")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_paths_serve_the_host_page_and_assets_their_bytes() {
    let (running, addr, dir) = start("pages").await;
    let page = fogproof_web::host_page();
    for path in ["/", "/games", "/game/00ff", "/audit", "/ratings/kriegspiel", "/x/y?z=1"] {
        let (status, headers, body) = request(addr, "GET", path, "").await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(body, page.bytes, "{path}: the embedded host.html");
        assert_eq!(header(&headers, "content-type"), Some("text/html; charset=utf-8"), "{path}");
        let csp = header(&headers, "content-security-policy").expect("a CSP");
        assert!(csp.contains("default-src 'self'") && csp.contains("frame-ancestors 'none'"));
    }
    let html = String::from_utf8_lossy(page.bytes).into_owned();
    assert!(html.contains("/assets/host.js"), "the page loads its script from /assets/");

    // HEAD: the same headers, no body.
    let (status, headers, body) = request(addr, "HEAD", "/audit", "").await;
    assert_eq!((status, body.len()), (200, 0));
    assert_eq!(header(&headers, "content-type"), Some("text/html; charset=utf-8"));

    // Every file of the bundle, with its type; then 304 for a client that holds it.
    for path in fogproof_web::paths() {
        let want = fogproof_web::asset(&path).expect("listed assets exist");
        let (status, headers, body) = request(addr, "GET", &format!("/assets/{path}"), "").await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(body, want.bytes, "{path}");
        assert_eq!(header(&headers, "content-type"), Some(want.content_type), "{path}");
        let tag = header(&headers, "etag").expect("an etag").to_owned();
        let (status, _, body) =
            request(addr, "GET", &format!("/assets/{path}"), &format!("If-None-Match: {tag}\r\n"))
                .await;
        assert_eq!((status, body.len()), (304, 0), "{path}");
        // A stale tag gets the bytes again.
        let (status, _, body) =
            request(addr, "GET", &format!("/assets/{path}"), "If-None-Match: \"stale\"\r\n").await;
        assert_eq!((status, body == want.bytes), (200, true), "{path}");
    }
    running.shutdown().await.expect("clean shutdown");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_is_not_shadowed_and_unknown_paths_are_named() {
    let (running, addr, dir) = start("errors").await;
    // The API still answers JSON.
    let (status, _, body) = request(addr, "GET", "/api/info", "").await;
    assert_eq!(status, 200);
    assert_eq!(json(&body)["server"], "fogproof");
    let (status, _, body) = request(addr, "GET", "/healthz", "").await;
    assert_eq!((status, body.as_slice()), (200, b"ok\n".as_slice()));

    // Unknown API paths, assets and ledger files: JSON 404s naming what was asked, never HTML.
    for (path, says) in [
        ("/api/nothing-here", "no route for GET /api/nothing-here"),
        ("/api", "no route for GET /api"),
        ("/assets/nope.js", "no asset \"nope.js\""),
        ("/assets/../Cargo.toml", "no asset"),
        // The ledger's own route answers there (no ledger here, or no such file): JSON too.
        ("/ledger/nothing", ""),
    ] {
        let (status, headers, body) = request(addr, "GET", path, "").await;
        assert_eq!(status, 404, "{path}");
        assert_eq!(header(&headers, "content-type"), Some("application/json"), "{path}");
        let error = json(&body)["error"].as_str().expect("an error").to_owned();
        assert!(error.starts_with(says), "{path}: {error}");
    }
    // A page path with another method.
    let (status, _, body) = request(addr, "POST", "/games", "").await;
    assert_eq!(status, 405);
    assert_eq!(json(&body)["error"], "no route for POST /games");
    // An API route with another method keeps axum's own answer (405), not the page.
    let (status, _, _) = request(addr, "DELETE", "/api/info", "").await;
    assert_eq!(status, 405);
    running.shutdown().await.expect("clean shutdown");
    let _ = std::fs::remove_dir_all(dir);
}
