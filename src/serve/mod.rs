//! `outflank serve`: the browser board. An HTTP server (axum on tokio) that serves the page
//! built into the binary (`page/`), a small JSON API and a WebSocket per game, as
//! `docs/serve.md` describes; a front-end over the same [`crate::controller::Controller`]
//! (one per game) as the protocols.
//!
//! - [`api`]: the page's files, the HTTP API, the headers of every answer.
//! - [`ws`]: a game's WebSocket: hello, messages, limits.
//! - [`registry`]: the games held, how a change goes (engine, store, connections).
//! - [`engine`]: the engine's moves, analyses and hints, and their results.
//! - [`room`]: one game, its seats and its rules; [`clocks`]: its players' clocks.
//! - [`review`]: a game's review, each move against the best, on the pool.
//! - [`pool`]: the engines, searching for every game in turn.
//! - [`store`] and [`record`]: the games in SQLite.
//! - [`limits`]: the server's limits (creations, games, connections) and their defaults.
//! - [`messages`]: the JSON types.

pub mod api;
pub mod clocks;
pub mod engine;
pub mod limits;
pub mod messages;
pub mod pool;
pub mod record;
pub mod registry;
pub mod review;
pub mod room;
pub mod store;
pub mod ws;

use crate::controller::Options;
use anyhow::Context;
use axum::Router;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::header;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use registry::Registry;
use std::io::Write;
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// How the server runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// The address to listen on.
    pub bind: IpAddr,
    /// The port; 0 picks a free one.
    pub port: u16,
    /// Open the page in a browser once listening.
    pub open: bool,
    /// The games' database.
    pub db: PathBuf,
    /// Searches at once.
    pub threads: usize,
    /// The engine options each game starts from.
    pub options: Options,
    /// The server's limits.
    pub limits: limits::Limits,
}

/// What the handlers share.
pub struct App {
    /// The games.
    pub registry: Arc<Registry>,
    /// The limits and what they count.
    pub gate: Arc<limits::Gate>,
}

/// The routes of `docs/serve.md`.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(api::index))
        .route("/g/{id}", get(api::index))
        .route("/{file}", get(api::file))
        .route("/api/games", get(api::list).post(api::create))
        .route("/api/games/{id}/join", post(api::join))
        .route("/api/games/{id}/ggf", get(api::ggf))
        .route("/api/load", post(api::load))
        .route("/ws/{id}", get(ws::upgrade))
        .fallback(api::not_found)
        .layer(DefaultBodyLimit::max(api::MAX_BODY))
        .layer(middleware::from_fn(same_origin))
        .layer(middleware::map_response(api::headers))
        .with_state(app)
}

/// Refuses (403) a request that a page of another site sends (its `Origin` is not this
/// server's): no other site's page may create games or open a game's socket.
async fn same_origin(req: Request, next: Next) -> Response {
    let headers = req.headers();
    if let Some(origin) = headers.get(header::ORIGIN) {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        let origin = origin.to_str().unwrap_or("");
        let host_of = origin.split_once("://").map(|(_, h)| h);
        if host.is_none() || host_of != host {
            return api::error(403, "requests from another site are refused");
        }
    }
    next.run(req).await
}

/// Runs the server until interrupted: opens the store, resumes its games, listens, prints
/// `listening http://ADDR:PORT/` on stdout.
pub fn run(config: Config) -> anyhow::Result<()> {
    let store = store::Store::open(&config.db)
        .with_context(|| format!("game store {}", config.db.display()))?;
    let registry = Registry::open(store, config.options.clone(), config.threads)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the server's threads")?;
    runtime.block_on(serve(config, registry))
}

async fn serve(config: Config, registry: Arc<Registry>) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind((config.bind, config.port))
        .await
        .with_context(|| format!("cannot listen on {}:{}", config.bind, config.port))?;
    let addr = listener.local_addr()?;
    let url = format!("http://{addr}/");
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening {url}")?;
        out.flush()?;
    }
    if !config.bind.is_loopback() {
        eprintln!(
            "outflank serve: bound to {}: anyone who can reach this machine on port {} can open the page and its games",
            config.bind,
            addr.port()
        );
    }
    if config.open {
        open_browser(&url);
    }
    tokio::spawn(clocks::referee(registry.clone()));
    tokio::spawn(clocks::keeper(registry.clone()));
    let app = Arc::new(App {
        registry: registry.clone(),
        gate: Arc::new(limits::Gate::new(config.limits)),
    });
    let service = router(app).into_make_service_with_connect_info::<std::net::SocketAddr>();
    tokio::select! {
        r = axum::serve(listener, service) => r.context("the server stopped")?,
        _ = shutdown() => log::info!("interrupted: stopping"),
    }
    // The running clocks kept as they stand, for a restart.
    registry.save_clocks();
    Ok(())
}

/// Waits for Ctrl-C or SIGTERM.
async fn shutdown() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Opens `url` with `xdg-open` (`open` on macOS); says so on stderr when it cannot.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let result = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match result {
        Err(e) => eprintln!("outflank serve: cannot open a browser ({opener}: {e}); open {url}"),
        Ok(mut child) => {
            let url = url.to_string();
            // The opener says whether it found a browser only when it ends.
            std::thread::spawn(move || {
                if child.wait().is_ok_and(|s| !s.success()) {
                    eprintln!("outflank serve: {opener} could not open a browser; open {url}");
                }
            });
        }
    }
}
