//! A real `nats-server -js` for the bus tests: on 127.0.0.1, a free port, a temp store
//! directory, killed on drop; and `volk serve` workers, killed on drop too.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub struct Nats {
    pub port: u16,
    /// `nats://127.0.0.1:PORT` (without credentials).
    pub url: String,
    child: Option<Child>,
    dir: tempfile::TempDir,
}

impl Nats {
    /// A server with volk's 8 MiB `max_payload`.
    pub fn start() -> Nats {
        Nats::with_config("")
    }

    /// A server whose config file also holds `extra` (an `authorization` block, …).
    pub fn with_config(extra: &str) -> Nats {
        Nats::with_config_file(&format!("max_payload: 8MB\n{extra}\n"))
    }

    /// A server whose whole config file is `config`.
    pub fn with_config_file(config: &str) -> Nats {
        assert!(
            Command::new("nats-server")
                .arg("--version")
                .output()
                .is_ok(),
            "nats-server is not installed (apt-get install nats-server; .ci/run does it)"
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("nats.conf"), config).unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut nats = Nats {
            port,
            url: format!("nats://127.0.0.1:{port}"),
            child: None,
            dir,
        };
        nats.spawn();
        nats
    }

    fn spawn(&mut self) {
        let store = self.dir.path().join("store");
        let child = Command::new("nats-server")
            .arg("-c")
            .arg(self.dir.path().join("nats.conf"))
            .args([
                "-js",
                "-a",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-sd",
            ])
            .arg(&store)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "nats-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops the server (SIGKILL, as a crash) and starts it again on its port and store.
    pub fn restart(&mut self) {
        self.stop();
        self.spawn();
    }

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// `volk bus init` with the clocks shortened to `secs` (ack wait and lease TTL).
    pub fn init(&self, secs: f64) -> Output {
        let out = volk(&["bus", "init", "--bus", &self.url])
            .args([
                "--ack-wait",
                &secs.to_string(),
                "--lease-ttl",
                &secs.to_string(),
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The volk binary with `args` and no reasoner or bus from the environment.
pub fn volk(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_volk"));
    cmd.args(args)
        .env("OPENAI_API_KEY", "sk-test-not-a-real-key")
        .env_remove("VOLK_REASONER")
        .env_remove("VOLK_BASE_URL")
        .env_remove("VOLK_BUS")
        .env_remove("VOLK_MAX_PACKET_BYTES")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// A `volk serve` process; its stderr goes to a file read by [`Worker::log`].
pub struct Worker {
    pub child: Child,
    pub log: PathBuf,
}

impl Worker {
    /// Starts `volk serve --bus URL --workspace WS --name NAME` with `extra` flags.
    pub fn start(url: &str, workspace: &Path, name: &str, extra: &[&str]) -> Worker {
        std::fs::create_dir_all(workspace).unwrap();
        let log = workspace
            .parent()
            .unwrap_or(workspace)
            .join(format!("{name}-{}.log", next_number()));
        let file = std::fs::File::create(&log).unwrap();
        let child = volk(&["serve", "--bus", url, "--name", name, "--workspace"])
            .arg(workspace)
            .args(extra)
            .current_dir(workspace)
            .env("VOLK_LOG", workspace.join(format!("{name}.volk.log")))
            .env("VOLK_CONFIG_DIR", workspace.join("no-user-config"))
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .unwrap();
        Worker { child, log }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until the log holds `what`, at most `timeout`.
    pub fn wait_for(&self, what: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if self.log().contains(what) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// SIGKILL: the worker dies wherever it is.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, then waits for the exit; returns its status code.
    pub fn terminate(&mut self, timeout: Duration) -> Option<i32> {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.kill();
    }
}

fn next_number() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    NEXT.fetch_add(1, Ordering::SeqCst)
}

/// Publishes `payload` on `subject` over the plain NATS protocol, as another agent of a
/// pipeline would (any language, no volk): with `msg_id` as its `Nats-Msg-Id`.
pub fn raw_publish(port: u16, subject: &str, msg_id: Option<&str>, payload: &[u8]) {
    use std::io::{BufRead, BufReader, Write};
    let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert!(line.starts_with("INFO"), "{line}");
    let mut out = stream;
    out.write_all(
        b"CONNECT {\"verbose\":false,\"pedantic\":false,\"headers\":true,\"protocol\":1}\r\n",
    )
    .unwrap();
    let headers = match msg_id {
        Some(id) => format!("NATS/1.0\r\nNats-Msg-Id: {id}\r\n\r\n"),
        None => "NATS/1.0\r\n\r\n".to_string(),
    };
    let mut frame = format!(
        "HPUB {subject} {} {}\r\n{headers}",
        headers.len(),
        headers.len() + payload.len()
    )
    .into_bytes();
    frame.extend_from_slice(payload);
    frame.extend_from_slice(b"\r\nPING\r\n");
    out.write_all(&frame).unwrap();
    loop {
        line.clear();
        reader.read_line(&mut line).unwrap();
        assert!(!line.starts_with("-ERR"), "{line}");
        if line.starts_with("PONG") {
            return;
        }
    }
}
