//! The HTTP side: the page's files, the JSON API of `docs/serve.md`, and the headers every
//! answer carries.

use super::App;
use super::messages::{CreateRequest, LoadRequest};
use super::registry::Refused;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

/// The most bytes a request body may hold.
pub const MAX_BODY: usize = 64 * 1024;

mod files {
    include!(concat!(env!("OUT_DIR"), "/page_files.rs"));
}
pub use files::PAGE_FILES;

/// The Content-Security-Policy of every answer: the page's own files only, no inline script.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
    img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; \
    frame-ancestors 'none'; form-action 'self'";

/// An error answer: `status` with `{"error": message}`.
pub fn error(status: u16, message: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    let body = serde_json::json!({ "error": message }).to_string();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn json(value: &impl serde::Serialize) -> Response {
    let body = serde_json::to_string(value).unwrap_or_else(|_| "null".into());
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn answer<T: serde::Serialize>(result: Result<T, Refused>) -> Response {
    match result {
        Ok(v) => json(&v),
        Err(r) => error(r.status, &r.message),
    }
}

/// Reads a JSON body: 413 over [`MAX_BODY`], 400 when it does not read.
fn body<T: DeserializeOwned>(bytes: Result<Bytes, BytesRejection>) -> Result<T, Box<Response>> {
    let bytes = bytes.map_err(|e| {
        let status = e.status();
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            Box::new(error(
                413,
                &format!("a body holds at most {MAX_BODY} bytes"),
            ))
        } else {
            Box::new(error(status.as_u16(), &e.body_text()))
        }
    })?;
    serde_json::from_slice(&bytes)
        .map_err(|e| Box::new(error(400, &format!("malformed request: {e}"))))
}

/// `GET /`, `GET /g/{id}`: the page.
pub async fn index() -> Response {
    page("index.html")
}

/// `GET /{file}`: one of the page's files.
pub async fn file(Path(name): Path<String>) -> Response {
    page(&name)
}

/// The page's file `name` with its type, or 404.
fn page(name: &str) -> Response {
    let Some((_, bytes)) = PAGE_FILES.iter().find(|(n, _)| *n == name) else {
        return error(404, "not found");
    };
    let kind = match name.rsplit_once('.').map(|(_, e)| e) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("json") => "application/json",
        Some("woff2") => "font/woff2",
        _ => "application/octet-stream",
    };
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        *bytes,
    )
        .into_response()
}

/// Admits a creation from `addr` within the limits ([`super::limits`]); a refusal for too
/// many creations says when to try again (`Retry-After`).
fn admit(app: &App, addr: SocketAddr) -> Result<(), Box<Response>> {
    let ongoing = app.registry.ongoing();
    app.gate
        .creation(addr.ip(), Instant::now(), ongoing)
        .map_err(|r| {
            let mut answer = error(r.status, &r.message);
            if r.status == 429 {
                let secs = super::limits::CREATION_WINDOW.as_secs().to_string();
                if let Ok(v) = HeaderValue::from_str(&secs) {
                    answer.headers_mut().insert(header::RETRY_AFTER, v);
                }
            }
            Box::new(answer)
        })
}

/// `POST /api/games`.
pub async fn create(
    State(app): State<Arc<App>>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    bytes: Result<Bytes, BytesRejection>,
) -> Response {
    if let Err(r) = admit(&app, addr) {
        return *r;
    }
    match body::<CreateRequest>(bytes) {
        Ok(req) => answer(app.registry.create(req)),
        Err(r) => *r,
    }
}

/// `POST /api/games/{id}/join`.
pub async fn join(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    answer(app.registry.join(&id))
}

/// `GET /api/games`.
pub async fn list(State(app): State<Arc<App>>) -> Response {
    json(&app.registry.list())
}

/// `GET /api/games/{id}/ggf`.
pub async fn ggf(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    match app.registry.ggf(&id) {
        Some(text) => {
            let disposition = format!(
                "attachment; filename=\"outflank-{}.ggf\"",
                &id[..8.min(id.len())]
            );
            let mut r =
                ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response();
            if let Ok(v) = HeaderValue::from_str(&disposition) {
                r.headers_mut().insert(header::CONTENT_DISPOSITION, v);
            }
            r
        }
        None => error(404, "no such game"),
    }
}

/// `POST /api/load`.
pub async fn load(
    State(app): State<Arc<App>>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    bytes: Result<Bytes, BytesRejection>,
) -> Response {
    if let Err(r) = admit(&app, addr) {
        return *r;
    }
    match body::<LoadRequest>(bytes) {
        Ok(req) => answer(app.registry.load_text(&req.text)),
        Err(r) => *r,
    }
}

/// Anything else: 404.
pub async fn not_found() -> Response {
    error(404, "not found")
}

/// Adds the headers every answer carries.
pub async fn headers(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    r
}
