//! The server's limits, all in one place, each with its flag and a default safe for a server
//! open to anyone:
//!
//! | flag | default | over it |
//! |---|---|---|
//! | `--max-creations N` | 30 | requests to create a game (`POST /api/games`, `POST /api/load`) a minute from one client address (an IPv6 address counts by its /64): 429 |
//! | `--max-games N` | 10000 | ongoing games on the server (finished ones do not count): 503 |
//! | `--max-game-connections N` | 64 | WebSocket connections to one game: 503 |
//! | `--max-connections N` | 4096 | WebSocket connections in all: 503 |
//!
//! A refusal is an HTTP error with `{"error": "..."}`, and changes nothing.

use super::registry::{Refused, refused};
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The window over which creations are counted.
pub const CREATION_WINDOW: Duration = Duration::from_secs(60);

/// Client addresses kept for the creation count before the stale ones are dropped.
const ADDRESSES_KEPT: usize = 10_000;

/// The limits' values (the flags of `outflank serve`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Games one client address may create a minute.
    pub max_creations: usize,
    /// Ongoing games on the server.
    pub max_games: usize,
    /// WebSocket connections to one game.
    pub max_game_connections: usize,
    /// WebSocket connections in all.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_creations: 30,
            max_games: 10_000,
            max_game_connections: 64,
            max_connections: 4096,
        }
    }
}

/// The limits applied: what each counts so far.
pub struct Gate {
    limits: Limits,
    creations: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
    connections: Mutex<Connections>,
}

#[derive(Default)]
struct Connections {
    total: usize,
    per_game: HashMap<String, usize>,
}

/// A WebSocket connection admitted: counted until dropped.
pub struct Admitted {
    gate: Arc<Gate>,
    game: String,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut c = self.gate.connections();
        c.total = c.total.saturating_sub(1);
        if let Some(n) = c.per_game.get_mut(&self.game) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                c.per_game.remove(&self.game);
            }
        }
    }
}

/// The address a client's creations count under: an IPv4 address (an IPv4-mapped IPv6
/// address as IPv4), or an IPv6 address's /64 (one site's or one machine's block).
pub fn client_key(addr: IpAddr) -> IpAddr {
    match addr {
        IpAddr::V4(_) => addr,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

impl Gate {
    /// A gate with these limits, nothing counted yet.
    pub fn new(limits: Limits) -> Gate {
        Gate {
            limits,
            creations: Mutex::new(HashMap::new()),
            connections: Mutex::new(Connections::default()),
        }
    }

    fn connections(&self) -> MutexGuard<'_, Connections> {
        self.connections.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Admits a creation of a game by `addr` at `now` while `ongoing` games go on: 429 over
    /// the creations a minute, 503 over the ongoing games. An admitted creation is counted.
    pub fn creation(&self, addr: IpAddr, now: Instant, ongoing: usize) -> Result<(), Refused> {
        if ongoing >= self.limits.max_games {
            return Err(refused(
                503,
                format!(
                    "the server holds {} ongoing games, its most: try later",
                    self.limits.max_games
                ),
            ));
        }
        let mut all = self.creations.lock().unwrap_or_else(|e| e.into_inner());
        let recent = |t: &Instant| now.saturating_duration_since(*t) < CREATION_WINDOW;
        if all.len() >= ADDRESSES_KEPT {
            all.retain(|_, times| times.back().is_some_and(recent));
        }
        let times = all.entry(client_key(addr)).or_default();
        while times.front().is_some_and(|t| !recent(t)) {
            times.pop_front();
        }
        if times.len() >= self.limits.max_creations {
            return Err(refused(
                429,
                format!(
                    "more than {} games created a minute from this address: try later",
                    self.limits.max_creations
                ),
            ));
        }
        times.push_back(now);
        Ok(())
    }

    /// Admits a WebSocket connection to game `id`: 503 over the connections of the game or
    /// in all. The connection counts until the answer is dropped.
    pub fn connect(self: &Arc<Self>, id: &str) -> Result<Admitted, Refused> {
        let mut c = self.connections();
        if c.total >= self.limits.max_connections {
            return Err(refused(
                503,
                format!(
                    "the server has {} connections, its most: try later",
                    self.limits.max_connections
                ),
            ));
        }
        let n = c.per_game.get(id).copied().unwrap_or(0);
        if n >= self.limits.max_game_connections {
            return Err(refused(
                503,
                format!(
                    "this game has {} connections, its most: try later",
                    self.limits.max_game_connections
                ),
            ));
        }
        c.total += 1;
        *c.per_game.entry(id.to_string()).or_insert(0) += 1;
        Ok(Admitted {
            gate: self.clone(),
            game: id.to_string(),
        })
    }

    /// The WebSocket connections open.
    pub fn connected(&self) -> usize {
        self.connections().total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Arc<Gate> {
        Arc::new(Gate::new(Limits {
            max_creations: 2,
            max_games: 3,
            max_game_connections: 2,
            max_connections: 3,
        }))
    }

    #[test]
    fn creations_are_counted_a_minute_by_address() {
        let g = small();
        let t = Instant::now();
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "::ffff:10.0.0.2".parse().unwrap();
        assert!(g.creation(a, t, 0).is_ok());
        assert!(g.creation(a, t, 0).is_ok());
        assert_eq!(g.creation(a, t, 0).unwrap_err().status, 429);
        assert!(g.creation(b, t, 0).is_ok(), "another address");
        assert!(g.creation("10.0.0.2".parse().unwrap(), t, 0).is_ok());
        assert_eq!(
            g.creation(b, t, 0).unwrap_err().status,
            429,
            "a mapped address counts as its IPv4"
        );
        assert!(g.creation(a, t + CREATION_WINDOW, 0).is_ok(), "a minute on");
        assert_eq!(g.creation(a, t, 3).unwrap_err().status, 503);
    }

    #[test]
    fn an_ipv6_address_counts_by_its_64() {
        let one: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let two: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let other: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_key(one), client_key(two));
        assert_ne!(client_key(one), client_key(other));
    }

    #[test]
    fn connections_count_until_dropped() {
        let g = small();
        let a1 = g.connect("a").unwrap();
        let a2 = g.connect("a").unwrap();
        assert_eq!(g.connect("a").err().unwrap().status, 503, "per game");
        let b1 = g.connect("b").unwrap();
        assert_eq!(g.connect("c").err().unwrap().status, 503, "in all");
        drop(a1);
        assert_eq!(g.connected(), 2);
        let a3 = g.connect("a").unwrap();
        drop((a2, a3, b1));
        assert_eq!(g.connected(), 0);
        assert!(g.connections().per_game.is_empty());
    }
}
