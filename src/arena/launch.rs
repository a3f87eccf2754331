//! Starting an engine: the client of its protocol, spawned and through its handshake.

use super::client::Client;
use super::engine::EngineFailure;
use super::gtp_client::GtpClient;
use super::nboard_client::NboardClient;
use super::ugi_client::UgiClient;
use super::{EngineSpec, Protocol};
use std::time::Duration;

/// Spawns the engine of `spec` and runs its protocol's handshake; `response_timeout` bounds
/// every answer that is not a move.
pub fn start(
    spec: &EngineSpec,
    response_timeout: Duration,
) -> Result<Box<dyn Client>, EngineFailure> {
    match spec.protocol {
        Protocol::Gtp => Ok(Box::new(GtpClient::start(spec, response_timeout)?)),
        Protocol::Nboard => Ok(Box::new(NboardClient::start(spec, response_timeout)?)),
        Protocol::Ugi => Ok(Box::new(UgiClient::start(spec, response_timeout)?)),
    }
}
