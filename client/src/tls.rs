//! TLS for every connection a player's side makes (https, wss): rustls with the aws-lc-rs
//! provider, verifying the server's certificate against the platform's roots plus any private
//! CA given with `--ca FILE` ([`add_ca_file`]).
//!
//! The extra roots are process-wide: one `fogproof` process talks to one host, and every
//! client it builds (the session's requests, its match sockets) trusts the same roots.

use rustls::ClientConfig;
use rustls::crypto::CryptoProvider;
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

/// The most certificates one `--ca` file may hold (the file is the operator's, but a bound
/// costs nothing).
pub const MAX_CA_CERTIFICATES: usize = 64;

/// Extra trusted roots, and the client configuration built from them (rebuilt after a change).
static STATE: Mutex<(Vec<CertificateDer<'static>>, Option<Arc<ClientConfig>>)> =
    Mutex::new((Vec::new(), None));

/// The crypto provider of every TLS connection fogproof makes or accepts.
pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// Trusts the CA certificates of the PEM file `path` (besides the platform's roots) for every
/// connection this process makes from now on.
pub fn add_ca_file(path: &Path) -> Result<usize, String> {
    let show = path.display();
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| format!("{show}: {e}"))?
        .take(MAX_CA_CERTIFICATES + 1)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{show}: {e}"))?;
    if certs.is_empty() {
        return Err(format!("{show}: no PEM certificate in it"));
    }
    if certs.len() > MAX_CA_CERTIFICATES {
        return Err(format!("{show}: more than {MAX_CA_CERTIFICATES} certificates"));
    }
    let n = certs.len();
    add_roots(certs);
    Ok(n)
}

/// Trusts `certs` (DER) besides the platform's roots ([`add_ca_file`]).
pub fn add_roots(certs: Vec<CertificateDer<'static>>) {
    let mut s = STATE.lock().unwrap_or_else(PoisonError::into_inner);
    s.0.extend(certs);
    s.1 = None;
}

/// The client configuration: the platform's roots and the extra ones, HTTP/1.1 only (the
/// server's API and its WebSockets are HTTP/1.1).
pub fn client_config() -> Result<Arc<ClientConfig>, String> {
    let mut s = STATE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(c) = &s.1 {
        return Ok(c.clone());
    }
    let provider = provider();
    let verifier =
        rustls_platform_verifier::Verifier::new_with_extra_roots(s.0.clone(), provider.clone())
            .map_err(|e| format!("TLS roots: {e}"))?;
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    let config = Arc::new(config);
    s.1 = Some(config.clone());
    Ok(config)
}

/// A readable reason for a failed TLS connection, if `e`'s chain holds a TLS error: an
/// unknown issuer says to pass `--ca`.
pub fn explain(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut cur = Some(e);
    while let Some(err) = cur {
        if let Some(t) = err.downcast_ref::<rustls::Error>() {
            return Some(describe(t));
        }
        if let Some(io) = err.downcast_ref::<std::io::Error>()
            && let Some(t) = io.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>())
        {
            return Some(describe(t));
        }
        // Some layers keep the TLS error only as text (a boxed connector error).
        let text = err.to_string();
        if text.contains("UnknownIssuer") {
            return Some(describe(&rustls::Error::InvalidCertificate(
                rustls::CertificateError::UnknownIssuer,
            )));
        }
        if text.contains("invalid peer certificate") {
            return Some(format!("TLS: the server's certificate is refused: {text}"));
        }
        cur = err.source();
    }
    None
}

fn describe(e: &rustls::Error) -> String {
    match e {
        rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer) => {
            "TLS: the server's certificate is not trusted (unknown issuer); for a private CA \
             pass --ca FILE"
                .into()
        }
        rustls::Error::InvalidCertificate(c) => {
            format!("TLS: the server's certificate is refused: {c:?}")
        }
        e => format!("TLS: {e}"),
    }
}

/// Whether `e`'s chain holds a TLS error (retrying will not help).
pub fn is_tls_error(e: &(dyn std::error::Error + 'static)) -> bool {
    explain(e).is_some()
}
