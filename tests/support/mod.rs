//! Helpers shared by the integration tests (each test binary includes what it uses).
#![allow(dead_code)]

pub mod live;
pub mod nats;
pub mod provider;
pub mod screen;
pub mod tmux;
