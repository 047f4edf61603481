//! The bus URL and its credentials.
//!
//! `--bus nats://user:pass@host:4222` (or `nats://TOKEN@host`, or `--bus-creds FILE`)
//! carries secrets. They are taken out of the URL before the client sees it and
//! registered with the process-wide redactor, so no log line, error or status output
//! shows them, whichever library wrote the text.

use std::path::{Path, PathBuf};
use std::time::Duration;

use percent_encoding::percent_decode_str;

use crate::BadInput;
use crate::bus::BusError;
use crate::redact;

#[derive(Clone)]
enum Auth {
    None,
    UserPassword(String, String),
    Token(String),
    Creds(PathBuf),
}

/// Where the bus is and how to log in.
#[derive(Clone)]
pub struct BusAddress {
    /// `host:port` of each server, with the scheme and without credentials.
    servers: Vec<String>,
    auth: Auth,
}

impl std::fmt::Debug for BusAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown())
    }
}

impl BusAddress {
    /// Parses `--bus` (servers separated by commas) and `--bus-creds`.
    pub fn parse(url: &str, creds: Option<&Path>) -> Result<BusAddress, BadInput> {
        let mut servers = Vec::new();
        let mut auth = Auth::None;
        for part in url.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (scheme, rest) = match part.split_once("://") {
                Some((scheme, rest)) => (scheme.to_ascii_lowercase(), rest),
                None => ("nats".to_string(), part),
            };
            if !["nats", "tls"].contains(&scheme.as_str()) {
                return Err(BadInput::new(format!(
                    "--bus: unknown scheme '{}' (expected nats:// or tls://)",
                    crate::echo::escape_controls(&scheme)
                )));
            }
            let authority = rest.split('/').next().unwrap_or_default();
            let host = match authority.rsplit_once('@') {
                Some((userinfo, host)) => {
                    auth = userinfo_auth(userinfo);
                    host
                }
                None => authority,
            };
            if host.is_empty() || host.contains(char::is_whitespace) {
                return Err(BadInput::new(
                    "--bus: expected nats://HOST:PORT (servers separated by commas)",
                ));
            }
            servers.push(format!("{scheme}://{host}"));
        }
        if servers.is_empty() {
            return Err(BadInput::new("--bus: no server given (nats://HOST:PORT)"));
        }
        if let Some(path) = creds {
            let text = std::fs::read_to_string(path).map_err(|e| {
                BadInput::new(format!(
                    "{}: cannot read the credentials: {e}",
                    path.display()
                ))
            })?;
            // The JWT and the nkey seed are the long lines of a creds file.
            for line in text.lines().map(str::trim) {
                if line.len() >= 16 && !line.starts_with("---") && !line.starts_with('*') {
                    redact::register(line);
                }
            }
            auth = Auth::Creds(path.to_path_buf());
        }
        Ok(BusAddress { servers, auth })
    }

    /// The URL as messages show it: servers only, credentials never.
    pub fn shown(&self) -> String {
        let login = match self.auth {
            Auth::None | Auth::Creds(_) => "",
            Auth::UserPassword(..) | Auth::Token(_) => "[redacted]@",
        };
        self.servers
            .iter()
            .map(|s| s.replacen("://", &format!("://{login}"), 1))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Connects as `name` (shown by the server's monitoring).
    pub async fn connect(&self, name: &str) -> Result<async_nats::Client, BusError> {
        let options = match &self.auth {
            Auth::None => async_nats::ConnectOptions::new(),
            Auth::UserPassword(user, password) => {
                async_nats::ConnectOptions::with_user_and_password(user.clone(), password.clone())
            }
            Auth::Token(token) => async_nats::ConnectOptions::with_token(token.clone()),
            Auth::Creds(path) => async_nats::ConnectOptions::with_credentials_file(path)
                .await
                .map_err(|e| BusError::new(path.display(), e))?,
        };
        let addrs: Vec<async_nats::ServerAddr> = self
            .servers
            .iter()
            .map(|s| s.parse::<async_nats::ServerAddr>())
            .collect::<Result<_, _>>()
            .map_err(|e| BusError::new(format!("--bus {}", self.shown()), e))?;
        options
            .name(name)
            .connection_timeout(Duration::from_secs(5))
            .request_timeout(Some(Duration::from_secs(10)))
            .connect(addrs)
            .await
            .map_err(|e| BusError::new(format!("cannot reach the bus at {}", self.shown()), e))
    }
}

/// `user:password` or a lone token, percent-decoded; each secret is registered.
fn userinfo_auth(userinfo: &str) -> Auth {
    redact::register(userinfo);
    let decode = |s: &str| percent_decode_str(s).decode_utf8_lossy().into_owned();
    match userinfo.split_once(':') {
        Some((user, password)) => {
            let password = decode(password);
            redact::register(&password);
            redact::register(password_raw(userinfo));
            Auth::UserPassword(decode(user), password)
        }
        None => {
            let token = decode(userinfo);
            redact::register(&token);
            Auth::Token(token)
        }
    }
}

fn password_raw(userinfo: &str) -> &str {
    userinfo.split_once(':').map_or("", |(_, p)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_leave_the_url_and_are_redacted() {
        let address = BusAddress::parse("nats://volk:s3cret-pass%21@127.0.0.1:4222", None).unwrap();
        assert_eq!(address.shown(), "nats://[redacted]@127.0.0.1:4222");
        assert_eq!(address.servers, vec!["nats://127.0.0.1:4222"]);
        let Auth::UserPassword(user, password) = &address.auth else {
            panic!("expected a user and password");
        };
        assert_eq!((user.as_str(), password.as_str()), ("volk", "s3cret-pass!"));
        let line = redact::scrub_text("failed: s3cret-pass! and s3cret-pass%21");
        assert!(!line.contains("s3cret"), "{line}");
    }

    #[test]
    fn a_bad_url_is_one_line() {
        let err = BusAddress::parse("http://x:1", None).unwrap_err();
        assert!(err.to_string().contains("unknown scheme"));
        assert!(BusAddress::parse("", None).is_err());
    }
}
