//! Listeners on 127.0.0.1 that are not GGS servers, for the client's login deadline and
//! retries: one that accepts and stays silent, one that closes each connection at once, one
//! that sends binary junk instead of the login prompt. Each counts the connections it got.

use std::io::{ErrorKind, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// What the listener does with a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behaviour {
    /// Accepts and says nothing (the connection stays open).
    Silent,
    /// Closes it at once.
    Close,
    /// Sends a line of binary junk (NULs, invalid UTF-8), then nothing.
    Junk,
}

/// The running listener; stopped when dropped.
pub struct NotGgs {
    port: u16,
    connections: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl NotGgs {
    /// Starts a listener that does `behaviour` with every connection.
    pub fn start(behaviour: Behaviour) -> NotGgs {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        listener.set_nonblocking(true).expect("non-blocking");
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (count, done) = (connections.clone(), stop.clone());
        let thread = thread::spawn(move || {
            let mut open: Vec<TcpStream> = Vec::new();
            while !done.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((mut stream, _)) => {
                        count.fetch_add(1, Ordering::SeqCst);
                        match behaviour {
                            Behaviour::Silent => open.push(stream),
                            Behaviour::Close => drop(stream),
                            Behaviour::Junk => {
                                let _ = stream.write_all(b"\x00\x01\xff\xfe\x00junk\x02\r\n");
                                open.push(stream);
                            }
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        thread::sleep(Duration::from_millis(10))
                    }
                    Err(_) => thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        NotGgs {
            port,
            connections,
            stop,
            thread: Some(thread),
        }
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The connections accepted so far.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

impl Drop for NotGgs {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A loopback port nothing listens on (bound, then let go).
pub fn closed_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    l.local_addr().unwrap().port()
}
