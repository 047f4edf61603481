//! The command line of the bus: `volk serve`, `volk submit`, `volk bus init|status|dlq`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Args, Subcommand};
use tokio_util::sync::CancellationToken;

use crate::BadInput;
use crate::bus::address::BusAddress;
use crate::bus::layout::{Bus, Timing};
use crate::bus::worker::{Worker, WorkerConfig};
use crate::volk::headless::{Setup, accept};
use crate::volk::loop_args::LoopArgs;

#[derive(Debug, Args)]
pub struct Connection {
    /// The NATS server: nats://[USER:PASS@|TOKEN@]HOST:PORT (servers separated by commas).
    #[arg(long, env = "VOLK_BUS")]
    pub bus: String,
    /// An nkey/JWT credentials file for the server.
    #[arg(long, env = "VOLK_BUS_CREDS")]
    pub bus_creds: Option<PathBuf>,
}

impl Connection {
    fn address(&self) -> Result<BusAddress, BadInput> {
        BusAddress::parse(&self.bus, self.bus_creds.as_deref())
    }
}

#[derive(Debug, Args)]
pub struct BusArgs {
    #[command(subcommand)]
    pub command: BusCommand,
}

#[derive(Debug, Subcommand)]
pub enum BusCommand {
    /// Create the streams, the consumer and the buckets (idempotent).
    Init(InitArgs),
    /// Threads, lease holders, pending and redelivered packets, dead letters.
    Status(Connection),
    /// Packets refused or out of deliveries.
    Dlq(DlqArgs),
}

#[derive(Debug, Args)]
pub struct InitArgs {
    #[command(flatten)]
    pub connection: Connection,
    /// Seconds before an unacknowledged packet is delivered again (default 60).
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    pub ack_wait: f64,
    /// Seconds a thread's lease lasts without renewal (default 60).
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    pub lease_ttl: f64,
}

#[derive(Debug, Args)]
pub struct DlqArgs {
    #[command(subcommand)]
    pub command: DlqCommand,
}

#[derive(Debug, Subcommand)]
pub enum DlqCommand {
    /// Every dead letter with its reason.
    List(Connection),
    /// Publish dead letters again (all, or one with --seq) and remove them from the list.
    Replay {
        #[command(flatten)]
        connection: Connection,
        /// The CXP_DLQ sequence of the one to replay.
        #[arg(long)]
        seq: Option<u64>,
    },
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub connection: Connection,
    #[command(flatten)]
    pub design: LoopArgs,
    /// Packets processed at once by this worker.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub concurrency: usize,
    /// Calls to the model provider at once (default: --concurrency).
    #[arg(long, value_name = "N")]
    pub provider_concurrency: Option<usize>,
    /// The worker's name in leases, the ledger and logs (default: host-pid).
    #[arg(long)]
    pub name: Option<String>,
    /// Seconds to wait for another process holding the thread's flock.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    pub lock_wait: u64,
    /// The largest inbound packet accepted, in bytes (default 8 MiB).
    #[arg(long, env = "VOLK_MAX_PACKET_BYTES", default_value_t = crate::intake::DEFAULT_MAX_PACKET_BYTES)]
    pub max_packet_bytes: u64,
    /// Seconds to finish the packets in hand after SIGTERM/SIGINT before handing them
    /// back to the queue (a second signal hands them back at once).
    #[arg(long, value_name = "SECS", default_value_t = 20)]
    pub drain: u64,
    /// A git repository (`file://` works) through which workers with separate
    /// workspaces pass each thread's state: one pair of refs per thread.
    #[arg(long, value_name = "URL")]
    pub state_remote: Option<String>,
}

#[derive(Debug, Args)]
pub struct SubmitArgs {
    #[command(flatten)]
    pub connection: Connection,
    /// The CXP packet: a file, or `-` for standard input (the default).
    #[arg(long, default_value = "-")]
    pub packet: String,
    /// Wait up to SECS for the reply and print it (exit 1 when none came).
    #[arg(long, value_name = "SECS")]
    pub wait: Option<u64>,
    /// The largest packet accepted, in bytes (default 8 MiB).
    #[arg(long, env = "VOLK_MAX_PACKET_BYTES", default_value_t = crate::intake::DEFAULT_MAX_PACKET_BYTES)]
    pub max_packet_bytes: u64,
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

fn seconds(flag: &str, value: f64) -> Result<Duration, BadInput> {
    if !(value.is_finite() && value >= 0.5) {
        return Err(BadInput::new(format!(
            "{flag}: must be at least 0.5 seconds"
        )));
    }
    Ok(Duration::from_secs_f64(value))
}

pub fn bus(args: BusArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        BusCommand::Init(init) => {
            let address = init.connection.address()?;
            let timing = Timing {
                ack_wait: seconds("--ack-wait", init.ack_wait)?,
                lease_ttl: seconds("--lease-ttl", init.lease_ttl)?,
            };
            let report = runtime()?.block_on(crate::bus::layout::init(&address, timing))?;
            for line in report {
                crate::console::line(&line)?;
            }
        }
        BusCommand::Status(connection) => {
            let address = connection.address()?;
            let lines = runtime()?.block_on(async {
                let mut bus = Bus::open(&address, "volk bus status").await?;
                crate::bus::status::report(&mut bus).await
            })?;
            for line in lines {
                crate::console::line(&line)?;
            }
        }
        BusCommand::Dlq(DlqArgs {
            command: DlqCommand::List(connection),
        }) => {
            let address = connection.address()?;
            let letters = runtime()?.block_on(async {
                let bus = Bus::open(&address, "volk bus dlq").await?;
                crate::bus::dlq::list(&bus).await
            })?;
            for letter in letters {
                crate::console::line(&crate::echo::escape_controls(&format!(
                    "CXP_DLQ#{} {} (CXP_IN#{}, {} deliveries, {} bytes): {}",
                    letter.seq,
                    letter.subject,
                    letter.inbound_seq,
                    letter.deliveries,
                    letter.payload.as_ref().map_or(0, |p| p.len()),
                    letter.reason
                )))?;
            }
        }
        BusCommand::Dlq(DlqArgs {
            command: DlqCommand::Replay { connection, seq },
        }) => {
            let address = connection.address()?;
            let report = runtime()?.block_on(async {
                let bus = Bus::open(&address, "volk bus dlq").await?;
                crate::bus::dlq::replay(&bus, seq).await
            })?;
            for line in report {
                crate::console::line(&line)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn submit(args: SubmitArgs) -> anyhow::Result<ExitCode> {
    let address = args.connection.address()?;
    let (source_name, text) = crate::intake::read_packet(&args.packet, args.max_packet_bytes)?;
    let packet = accept(&source_name, &text)?;
    let reply = runtime()?.block_on(async {
        let bus = Bus::open(&address, "volk submit").await?;
        let id = crate::bus::names::ledger_key(&crate::volk::ledger::Key::of(&packet));
        let seen = crate::bus::submit::refused_revision(&bus, &id).await;
        let submitted = crate::bus::submit::publish(&bus, &packet, &text).await?;
        crate::bus::note(&format!(
            "[bus] submitted {} as CXP_IN#{}{}",
            submitted.subject,
            submitted.seq,
            if submitted.duplicate {
                " (a duplicate: already queued or taken)"
            } else {
                ""
            }
        ));
        match args.wait {
            Some(secs) => {
                crate::bus::submit::reply(&bus, &submitted.id, Duration::from_secs(secs), seen)
                    .await
            }
            None => Ok(None),
        }
    })?;
    if let Some(packet) = reply {
        crate::console::line(&packet.to_json_pretty())?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let address = args.connection.address()?;
    if args.design.workspace.is_none() {
        return Err(BadInput::err("--workspace: required for volk serve"));
    }
    if args.concurrency == 0 {
        return Err(BadInput::err("--concurrency: must be at least 1"));
    }
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let mut setup = Setup::from_args(&args.design, &cwd)?;
    let calls = args.provider_concurrency.unwrap_or(args.concurrency);
    if calls == 0 {
        return Err(BadInput::err("--provider-concurrency: must be at least 1"));
    }
    setup.reasoner = crate::bus::limit::Limited::wrap(setup.reasoner, calls);
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| format!("{}-{}", crate::volk::lock::host_name(), std::process::id()));
    let config = WorkerConfig {
        name,
        concurrency: args.concurrency,
        lock_wait: Duration::from_secs(args.lock_wait),
        max_packet_bytes: args.max_packet_bytes,
    };
    let drain = Duration::from_secs(args.drain);
    let state = args
        .state_remote
        .as_deref()
        .map(|url| crate::bus::state::StateRemote::new(url, Duration::from_secs(args.lock_wait)));
    runtime()?.block_on(async move {
        let bus = Bus::open(&address, &config.name).await?;
        let stop = CancellationToken::new();
        let abandon = CancellationToken::new();
        tokio::spawn(signals(stop.clone(), abandon.clone(), drain));
        Worker::new(bus, setup, config, state)
            .run(stop, abandon)
            .await
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The first SIGTERM/SIGINT stops taking packets; the second, or the end of the drain,
/// hands the packets in hand back to the queue.
async fn signals(stop: CancellationToken, abandon: CancellationToken, drain: Duration) {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        return;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    crate::bus::note("[bus] signal: taking no more packets");
    stop.cancel();
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
        _ = tokio::time::sleep(drain) => {}
    }
    abandon.cancel();
}
