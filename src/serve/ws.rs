//! A game's WebSocket (`GET /ws/{id}`): the hello that says who the connection is, then its
//! messages, each handled by the registry, and the game's notes sent back. Messages over
//! 4 KiB close the connection (1009); more than 20 a second are refused; a malformed one gets
//! an error and changes nothing.

use super::App;
use super::messages::{ClientMessage, ServerMessage};
use super::registry::{Live, Note};
use super::room::Seat;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::broadcast::error::RecvError;

/// The largest message a connection may send, in bytes.
pub const MAX_MESSAGE: usize = 4096;
/// The most messages a connection may send in a second.
pub const MAX_RATE: usize = 20;
/// How long a connection has to say hello before it is closed (1008).
pub const HELLO_WITHIN: Duration = Duration::from_secs(10);

/// `GET /ws/{id}`: the upgrade to a game's WebSocket (404 for no such game).
pub async fn upgrade(
    ws: WebSocketUpgrade,
    Path(id): Path<String>,
    State(app): State<Arc<App>>,
) -> Response {
    let Some(live) = app.registry.live(&id) else {
        return super::api::error(404, "no such game");
    };
    let admitted = match app.gate.connect(&id) {
        Ok(a) => a,
        Err(r) => return super::api::error(r.status, &r.message),
    };
    // Larger messages than ours are read whole, to be refused with 1009 here; far larger
    // ones the socket refuses itself.
    ws.max_message_size(64 * 1024)
        .max_frame_size(64 * 1024)
        .on_upgrade(move |socket| async move {
            session(socket, app, live).await;
            drop(admitted);
        })
        .into_response()
}

/// Counts a connection's messages over the last second.
struct Rate {
    times: std::collections::VecDeque<Instant>,
}

impl Rate {
    /// True when one more message is within the rate.
    fn allow(&mut self) -> bool {
        let now = Instant::now();
        while self
            .times
            .front()
            .is_some_and(|t| now.duration_since(*t) >= Duration::from_secs(1))
        {
            self.times.pop_front();
        }
        if self.times.len() >= MAX_RATE {
            return false;
        }
        self.times.push_back(now);
        true
    }
}

/// Who a connection is, once it said hello.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Who {
    /// Not yet said.
    Unknown,
    /// A seat, or a spectator (`None`).
    Known(Option<Seat>),
}

async fn send(socket: &mut WebSocket, msg: &ServerMessage) -> bool {
    socket
        .send(Message::Text(msg.to_json().into()))
        .await
        .is_ok()
}

async fn send_state(socket: &mut WebSocket, live: &Live, seat: Option<Seat>) -> bool {
    let state = ServerMessage::State(Box::new(live.room().state(seat)));
    send(socket, &state).await
}

async fn session(mut socket: WebSocket, app: Arc<App>, live: Arc<Live>) {
    let conn = app.registry.connection();
    let mut notes = live.notes.subscribe();
    let mut who = Who::Unknown;
    let mut rate = Rate {
        times: Default::default(),
    };
    let mut last_state: Option<String> = None;
    let hello_by = tokio::time::sleep(HELLO_WITHIN);
    tokio::pin!(hello_by);
    loop {
        tokio::select! {
            _ = &mut hello_by, if who == Who::Unknown => {
                let frame = CloseFrame { code: 1008, reason: "no hello".into() };
                let _ = socket.send(Message::Close(Some(frame))).await;
                break;
            }
            msg = socket.recv() => {
                let (len, text) = match msg {
                    Some(Ok(Message::Text(t))) => (t.len(), Some(t.to_string())),
                    Some(Ok(Message::Binary(b))) => (b.len(), None),
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    _ => break,
                };
                if len > MAX_MESSAGE {
                    let frame = CloseFrame { code: 1009, reason: "message too big".into() };
                    let _ = socket.send(Message::Close(Some(frame))).await;
                    break;
                }
                if !rate.allow() {
                    let e = ServerMessage::error(format!("more than {MAX_RATE} messages a second"));
                    if !send(&mut socket, &e).await {
                        break;
                    }
                    continue;
                }
                let Some(text) = text else {
                    if !send(&mut socket, &ServerMessage::error("messages are JSON text")).await {
                        break;
                    }
                    continue;
                };
                if !message(&mut socket, &app, &live, conn, &mut who, &text).await {
                    break;
                }
            }
            note = notes.recv() => {
                let Who::Known(seat) = who else { continue };
                let ok = match note {
                    Ok(Note::State) | Err(RecvError::Lagged(_)) => {
                        // The state is rendered when sent: two notes that queued give the
                        // same state, sent once.
                        let text = ServerMessage::State(Box::new(live.room().state(seat))).to_json();
                        if last_state.as_deref() == Some(text.as_str()) {
                            true
                        } else {
                            let ok = socket.send(Message::Text(text.clone().into())).await.is_ok();
                            last_state = Some(text);
                            ok
                        }
                    }
                    Ok(Note::To { conn: c, text }) if c == conn => {
                        socket.send(Message::Text(text.as_ref().into())).await.is_ok()
                    }
                    Ok(Note::To { .. }) => true,
                    Err(RecvError::Closed) => false,
                };
                if !ok {
                    break;
                }
            }
        }
    }
    app.registry.left(&live, conn);
}

/// Handles one text message; false when the connection is gone.
async fn message(
    socket: &mut WebSocket,
    app: &App,
    live: &Live,
    conn: u64,
    who: &mut Who,
    text: &str,
) -> bool {
    let msg = match serde_json::from_str::<ClientMessage>(text) {
        Ok(m) => m,
        Err(e) => {
            let e = ServerMessage::error(format!("malformed message: {e}"));
            return send(socket, &e).await;
        }
    };
    let seat = match (*who, msg) {
        (Who::Unknown, ClientMessage::Hello { token }) => {
            let found = token.as_deref().map(|t| live.room().seat_of(t));
            let seat = match found {
                None => None,
                Some(found) => match found {
                    Some(s) => Some(s),
                    None => {
                        let e =
                            ServerMessage::error("unknown token: say hello without one to watch");
                        return send(socket, &e).await;
                    }
                },
            };
            *who = Who::Known(seat);
            return send_state(socket, live, seat).await;
        }
        (Who::Unknown, _) => {
            return send(socket, &ServerMessage::error("say hello first")).await;
        }
        (Who::Known(seat), msg) => (seat, msg),
    };
    match app.registry.handle(live, seat.0, conn, seat.1) {
        Ok(None) => true,
        Ok(Some(answer)) => send(socket, &answer).await,
        Err(e) => send(socket, &ServerMessage::error(e)).await,
    }
}
