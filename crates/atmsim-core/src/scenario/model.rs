//! The scenario document: what a TOML (or JSON) scenario file may contain.
//!
//! Owns the serde model. Every field states its unit in its name (`_s`, `_ms`, `_bps`,
//! `_bytes`, `_cells`) and its default here; unknown fields are errors. Numbers that users
//! can get wrong in sign or range are read as `f64`/`i64` and checked in
//! [`super::build()`], so the error can say what was expected rather than "invalid type".
//! Every table-valued field goes through [`super::table`], so a sequence written where a
//! table belongs is refused rather than read by position. Ranges are in [`super::limits`].
//! The user-facing reference is `docs/scenario.md`.

pub use super::internet::{IpoaSec, LanSec, RouterSec, SerialSec, SignallingSec, SiteSec, TrafficSec, UdpSec};
use super::table;
use crate::atm::port::DropPolicyName;
use crate::atm::sched::Discipline;
use crate::kernel::TieOrder;
use crate::transport::tcp::{SsthreshOnLoss, Variant};
use serde::{Deserialize, Serialize};

/// A whole scenario.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioDoc {
    /// Short name used in outputs (default: the file stem).
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(deserialize_with = "table::one")]
    pub simulation: SimulationSec,
    #[serde(default, rename = "host", deserialize_with = "table::many")]
    pub hosts: Vec<HostSec>,
    #[serde(default, rename = "switch", deserialize_with = "table::many")]
    pub switches: Vec<SwitchSec>,
    #[serde(default, rename = "link", deserialize_with = "table::many")]
    pub links: Vec<LinkSec>,
    #[serde(default, rename = "vc", deserialize_with = "table::many")]
    pub vcs: Vec<VcSec>,
    #[serde(default, rename = "tcp", deserialize_with = "table::many")]
    pub tcp: Vec<TcpSec>,
    #[serde(default, rename = "cell_source", deserialize_with = "table::many")]
    pub cell_sources: Vec<CellSourceSec>,
    #[serde(default, rename = "capture", deserialize_with = "table::many")]
    pub captures: Vec<CaptureSec>,
    #[serde(default, rename = "router", deserialize_with = "table::many")]
    pub routers: Vec<RouterSec>,
    #[serde(default, rename = "serial", deserialize_with = "table::many")]
    pub serial: Vec<SerialSec>,
    #[serde(default, rename = "lan", deserialize_with = "table::many")]
    pub lans: Vec<LanSec>,
    #[serde(default, rename = "udp", deserialize_with = "table::many")]
    pub udp: Vec<UdpSec>,
    #[serde(default, deserialize_with = "table::optional")]
    pub signalling: Option<SignallingSec>,
    #[serde(default, rename = "site", deserialize_with = "table::many")]
    pub sites: Vec<SiteSec>,
    #[serde(default, rename = "traffic", deserialize_with = "table::many")]
    pub traffic: Vec<TrafficSec>,
}

/// `[simulation]`: run length and measurement.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationSec {
    /// Simulated time to run \[s\] (> 0).
    pub duration_s: f64,
    /// Statistics exclude the first `warmup_s` \[s\] (0 ≤ warmup < duration). Default 0.
    #[serde(default)]
    pub warmup_s: f64,
    /// Master seed of all random streams. Default 1.
    #[serde(default = "one_i64")]
    pub seed: i64,
    /// Period of the time-series probes \[ms\]; 0 turns them off. Default: duration / 500.
    #[serde(default)]
    pub sample_interval_ms: Option<f64>,
    /// Serve busy ports and links inline up to the next event (identical results, faster).
    /// Default true.
    #[serde(default = "yes")]
    pub batching: bool,
    /// Plesiochronous link clocks \[ppm\]: each direction of every link without its own
    /// `clock_ppm` runs at its nominal rate × (1 + ε), ε drawn uniformly in [−x, +x] ppm from
    /// the seed. 0 (default) = every clock exact, so equal-rate links stay in lock step.
    #[serde(default)]
    pub link_clock_ppm: f64,
    /// The engine's last tie-break among simultaneous events that do not interact: "fifo"
    /// (default: scheduling order), "lifo" or "random" (a permutation drawn from the seed).
    /// Results do not depend on it (DESIGN §2b); it exists to check that.
    #[serde(default)]
    pub tie_order: TieOrderSpec,
}

/// `simulation.tie_order` (kernel module docs, "Order").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TieOrderSpec {
    #[default]
    Fifo,
    Lifo,
    Random,
}

impl TieOrderSpec {
    pub const ALL: [TieOrderSpec; 3] = [TieOrderSpec::Fifo, TieOrderSpec::Lifo, TieOrderSpec::Random];

    /// The engine's order, a random one permuted by `salt`.
    pub const fn order(self, salt: u64) -> TieOrder {
        match self {
            TieOrderSpec::Fifo => TieOrder::Fifo,
            TieOrderSpec::Lifo => TieOrder::Lifo,
            TieOrderSpec::Random => TieOrder::Random(salt),
        }
    }

    /// The name scenarios give it (the engine's order's).
    pub const fn name(self) -> &'static str {
        self.order(0).name()
    }
}

/// `[[host]]`: an end system: at most one ATM adapter (a `[[link]]`), serial lines, LANs.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostSec {
    pub name: String,
    /// Adapter scheduler over its VC queues: "fifo" (default), "round_robin", or a QoS
    /// discipline ("static_priority", "rcsp_wc", "rcsp_nwc"; `atm::priority`).
    #[serde(default)]
    pub scheduler: Discipline,
    /// Adapter buffer \[cells\]; absent = unlimited.
    #[serde(default)]
    pub buffer_cells: Option<i64>,
    /// Interface MTU \[bytes\]. Default 9180 (RFC 1626, IP over AAL5).
    #[serde(default = "mtu_default")]
    pub mtu_bytes: i64,
    /// Receive CPU time per TCP segment \[µs\] (MAGIC §4.3). Default 0: no CPU model.
    #[serde(default)]
    pub rx_cpu_per_segment_us: f64,
    /// Receive CPU time per payload byte \[ns\]. Default 0.
    #[serde(default)]
    pub rx_cpu_per_byte_ns: f64,
    /// Send CPU time per TCP segment \[µs\]; the same CPU as receiving. Default 0.
    #[serde(default)]
    pub tx_cpu_per_segment_us: f64,
    /// Send CPU time per payload byte \[ns\]. Default 0.
    #[serde(default)]
    pub tx_cpu_per_byte_ns: f64,
    /// A random extra CPU time per segment, uniform on [0, this) \[µs\], both directions
    /// (`ip::cpu`, "Timing jitter"). Default 0: none.
    #[serde(default)]
    pub cpu_jitter_us: f64,
    /// VP-style shaping of everything the host sends (atm::shaping); absent = none.
    #[serde(default, deserialize_with = "table::optional")]
    pub shape: Option<ShapeSec>,
    /// Explicit-rate allocation of the adapter's own link among the host's ABR VCs
    /// ("maxmin" or "erica"); absent = none (each VC may reach its PCR).
    #[serde(default)]
    pub er_algorithm: Option<crate::abr::ErAlgorithm>,
    /// The IP-over-ATM driver's policies ([`IpoaSec`]); absent = its defaults.
    #[serde(default, deserialize_with = "table::optional")]
    pub ipoa: Option<IpoaSec>,
}

/// `shape = { ... }`: a GCRA shaper (ITU-T I.371) with increment T = 424 / rate \[s\] and
/// limit tau. Give `rate_bps`, or `mean_bps` with `beta` (Koçyiğit: rate = beta · mean).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ShapeSec {
    /// Shaping rate [bit/s of 53-byte cells].
    #[serde(default)]
    pub rate_bps: Option<f64>,
    /// Shaping rate \[cells/s\] instead of `rate_bps` (T = 1 / rate).
    #[serde(default)]
    pub rate_cells_per_s: Option<f64>,
    /// Mean rate [bit/s]; the shaping rate is beta · mean_bps.
    #[serde(default)]
    pub mean_bps: Option<f64>,
    /// Peak-to-mean factor for mean_bps (Koçyiğit uses 1.2). Default 1.
    #[serde(default)]
    pub beta: Option<f64>,
    /// GCRA limit tau \[µs\] (≥ 0). Default 0: cells exactly T apart.
    #[serde(default)]
    pub tau_us: f64,
    /// Most cells the shaper holds \[cells\]; a frame that does not fit whole is refused.
    /// Default: the send buffers of the TCP connections it carries (see
    /// `scenario::build::shaping::socket_buffer_bounds`), plus the adapter's `buffer_cells`
    /// if anything else sends through it.
    #[serde(default)]
    pub buffer_cells: Option<i64>,
}

/// `[[switch]]`: an output-queued switch; its settings apply to every output port.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchSec {
    pub name: String,
    /// "fifo" (default), "round_robin" (per-VC queues, Cáceres §8 token queue), or a QoS
    /// discipline: "static_priority", "rcsp_wc", "rcsp_nwc" (Mah sp/wc/nwc; `atm::priority`).
    #[serde(default)]
    pub scheduler: Discipline,
    /// Output buffer per port \[cells\]; absent = unlimited. Fore ASX-100: 256.
    #[serde(default)]
    pub buffer_cells: Option<i64>,
    /// "tail" (default), "ppd" or "epd".
    #[serde(default)]
    pub drop_policy: DropPolicyName,
    /// EPD threshold \[cells\]; required with drop_policy = "epd", must be ≤ buffer_cells.
    #[serde(default)]
    pub epd_threshold_cells: Option<i64>,
    /// Per-VC cap on a port's data buffer \[cells\] (Mah §5.5.4: conversations sharing a VC
    /// "compete for buffer space"; spec A-4); absent = none.
    #[serde(default)]
    pub vc_buffer_cells: Option<i64>,
    /// Per-VC EPD threshold \[cells\] (≤ vc_buffer_cells; needs drop_policy = "epd"); absent = none.
    #[serde(default)]
    pub vc_epd_threshold_cells: Option<i64>,
    /// Drop arriving CLP=1 cells while a port queue holds at least this many cells;
    /// absent = never (CLP=1 cells are treated like any other).
    #[serde(default)]
    pub clp1_threshold_cells: Option<i64>,
    /// Explicit-rate allocator of every output port for ABR VCs: "maxmin" or "erica";
    /// absent = none (backward RM cells pass unchanged).
    #[serde(default)]
    pub er_algorithm: Option<crate::abr::ErAlgorithm>,
    /// Per-port override of `er_algorithm`, keyed by the neighbour the port leads to.
    #[serde(default, deserialize_with = "table::optional")]
    pub er_algorithm_by_port: Option<std::collections::BTreeMap<String, crate::abr::ErAlgorithm>>,
    /// ERICA's target utilisation U (0, 1]. Default 0.95.
    #[serde(default)]
    pub erica_target_utilization: Option<f64>,
    /// ERICA's averaging interval \[ms\]. Default 1.
    #[serde(default)]
    pub erica_interval_ms: Option<f64>,
}

/// `[[link]]`: a full-duplex physical link between two nodes.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSec {
    /// Name (default "a-b").
    #[serde(default)]
    pub name: Option<String>,
    pub a: String,
    pub b: String,
    /// "t1", "ds3", "taxi100", "oc3c" or "oc12c" (cell-carrying rates, see atm::link).
    #[serde(default)]
    pub preset: Option<String>,
    /// Cell-carrying rate [bit/s]; give this or `preset`.
    #[serde(default)]
    pub rate_bps: Option<f64>,
    /// One-way propagation delay \[ms\] (≥ 0).
    pub delay_ms: f64,
    /// Clock offset of both directions [ppm, −1000..1000]: the link carries cells at
    /// rate × (1 + clock_ppm·10⁻⁶). Overrides `simulation.link_clock_ppm` for this link.
    #[serde(default)]
    pub clock_ppm: Option<f64>,
}

/// `[[vc]]`: a bidirectional permanent virtual circuit along a path of nodes. Its optional
/// sections are boxed, so a VC without them takes 96 bytes here (docs/performance.md, "The
/// scenario reader").
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct VcSec {
    pub name: String,
    /// Host, switches…, host: consecutive nodes must share a link.
    pub path: Vec<String>,
    /// Shape the VC's forward direction (cells sent by `path[0]`); absent = none.
    #[serde(default, deserialize_with = "table::optional")]
    pub shape: Option<Box<ShapeSec>>,
    /// OTTO-style pacing of the forward direction [bit/s of cells]: a shaper with tau = 0.
    #[serde(default)]
    pub pace_bps: Option<f64>,
    /// Police the forward direction at a switch input (atm::shaping); absent = none.
    #[serde(default, deserialize_with = "table::optional")]
    pub police: Option<Box<PoliceSec>>,
    /// Re-shape the forward direction at a switch input (atm::shaping); absent = none.
    #[serde(default, deserialize_with = "table::optional")]
    pub reshape: Option<Box<ReshapeSec>>,
    /// ABR rate control in both directions (crate::abr); absent = a VC sent at line rate.
    #[serde(default, deserialize_with = "table::optional")]
    pub abr: Option<Box<AbrSec>>,
}

/// Parameter presets of `abr`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AbrPreset {
    /// TM 4.0 defaults (ICR = PCR, RIF = 1/16).
    #[default]
    Tm4,
    /// Kalampoukas et al. 1997 §5.1: Nrm 32, RIF 1/64, ICR = PCR/50, the rest TM 4.0.
    Kalampoukas97,
}

/// How the IP output queue of an ABR VC is served.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IpServiceName {
    /// The next datagram is segmented when the VC's cells are gone: IP served at ACR.
    #[default]
    Acr,
    /// Datagrams are segmented at once; the backlog waits in the VC's cell queue.
    Instant,
}

/// `abr = { ... }` of a `[[vc]]`: TM 4.0 parameters (both directions) and the end systems'
/// IP queueing. Rates per direction: `pcr_*` for the forward direction (sent by `path[0]`),
/// `reverse_pcr_*` for the reverse; default the cell rate of the sender's adapter link.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AbrSec {
    #[serde(default)]
    pub preset: AbrPreset,
    #[serde(default)]
    pub pcr_bps: Option<f64>,
    #[serde(default)]
    pub pcr_cells_per_s: Option<f64>,
    #[serde(default)]
    pub reverse_pcr_bps: Option<f64>,
    #[serde(default)]
    pub reverse_pcr_cells_per_s: Option<f64>,
    /// ICR as a fraction of each direction's PCR.
    #[serde(default)]
    pub icr_fraction: Option<f64>,
    #[serde(default)]
    pub mcr_cells_per_s: Option<f64>,
    #[serde(default)]
    pub tcr_cells_per_s: Option<f64>,
    #[serde(default)]
    pub rif: Option<f64>,
    #[serde(default)]
    pub rdf: Option<f64>,
    #[serde(default)]
    pub cdf: Option<f64>,
    #[serde(default)]
    pub nrm: Option<i64>,
    #[serde(default)]
    pub mrm: Option<i64>,
    #[serde(default)]
    pub trm_ms: Option<f64>,
    #[serde(default)]
    pub adtf_s: Option<f64>,
    #[serde(default)]
    pub tbe_cells: Option<i64>,
    /// "acr" (default) or "instant".
    #[serde(default)]
    pub ip_service: IpServiceName,
    /// Most datagrams an end's IP queue holds; absent = unlimited.
    #[serde(default)]
    pub ip_queue_packets: Option<i64>,
    /// Pure acks are served ahead of data in the IP queue (Kalampoukas §6).
    #[serde(default)]
    pub ack_priority: bool,
    /// Pure acks are sent on this other ABR VC between the same two nodes (Kalampoukas §6).
    #[serde(default)]
    pub ack_vc: Option<String>,
}

/// `reshape = { at, rate_bps | mean_bps + beta, tau_us }`: a GCRA shaper at the input of switch
/// `at`: the VC's cells wait there until they conform, then enter the output port.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ReshapeSec {
    /// The switch (on the VC's path) whose input shapes the VC.
    pub at: String,
    #[serde(default)]
    pub rate_bps: Option<f64>,
    #[serde(default)]
    pub rate_cells_per_s: Option<f64>,
    #[serde(default)]
    pub mean_bps: Option<f64>,
    #[serde(default)]
    pub beta: Option<f64>,
    /// GCRA limit tau \[µs\]. Default 0.
    #[serde(default)]
    pub tau_us: f64,
    /// Cells the re-shaper can hold; a cell arriving to a full one is dropped. Default: the
    /// switch's `buffer_cells` (unlimited if that is).
    #[serde(default)]
    pub buffer_cells: Option<i64>,
}

/// `police = { rate_bps, tau_us, action }`: a GCRA policer (I.371 UPC).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PoliceSec {
    /// Policed rate [bit/s of cells].
    #[serde(default)]
    pub rate_bps: Option<f64>,
    /// Policed rate \[cells/s\] instead of `rate_bps`.
    #[serde(default)]
    pub rate_cells_per_s: Option<f64>,
    /// Mean rate [bit/s]; the policed rate is beta · mean_bps.
    #[serde(default)]
    pub mean_bps: Option<f64>,
    #[serde(default)]
    pub beta: Option<f64>,
    /// GCRA limit tau \[µs\]. Default 0.
    #[serde(default)]
    pub tau_us: f64,
    /// "tag" (CLP=1, default) or "drop".
    #[serde(default = "tag")]
    pub action: crate::atm::shaping::PoliceAction,
    /// The switch (on the VC's path) whose input polices; default the first.
    #[serde(default)]
    pub at: Option<String>,
}

/// `[[tcp]]`: a TCP connection from `client` (active open, sender) to `server` (sink).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TcpSec {
    pub name: String,
    pub client: String,
    pub server: String,
    /// The VC carrying it; default: the only VC joining the two hosts.
    #[serde(default)]
    pub vc: Option<String>,
    /// "tahoe", "reno" (default), "newreno" or "cubic".
    #[serde(default)]
    pub variant: Variant,
    /// SACK (RFC 2018 and RFC 6675 loss recovery). Default false.
    #[serde(default)]
    pub sack: bool,
    /// RFC 7323 timestamps (RTTM and PAWS). Default false.
    #[serde(default)]
    pub timestamps: bool,
    /// HyStart++ slow start (RFC 9406). Default false.
    #[serde(default)]
    pub hystart: bool,
    /// "half_window" (default: BSD, min(cwnd, window) / 2) or "half_advertised" (the
    /// advertised window / 2): how a loss sets ssthresh.
    #[serde(default)]
    pub ssthresh_on_loss: SsthreshOnLoss,
    /// Socket buffers of both ends \[bytes\] (ttcp -b): the TCP window. Default 8192
    /// (4.4BSD tcp_sendspace/tcp_recvspace).
    #[serde(default)]
    pub window_bytes: Option<i64>,
    /// Send buffer \[bytes\]; overrides window_bytes for the sender.
    #[serde(default)]
    pub snd_buf_bytes: Option<i64>,
    /// Receive buffer \[bytes\]; overrides window_bytes for the receiver.
    #[serde(default)]
    pub rcv_buf_bytes: Option<i64>,
    /// MSS to offer \[bytes\]; default host MTU − 40.
    #[serde(default)]
    pub mss_bytes: Option<i64>,
    #[serde(default = "yes")]
    pub nagle: bool,
    #[serde(default = "yes")]
    pub delayed_ack: bool,
    /// Duplicate ACKs that trigger fast retransmit (tcprexmtthresh); 0 turns fast
    /// retransmit off (recovery by timeout only, as TCPs before 4.3BSD-Tahoe). Default 3.
    #[serde(default = "three")]
    pub dupack_threshold: i64,
    #[serde(default = "yes")]
    pub window_scaling: bool,
    /// BSD tcp_mss(): round socket buffers up to whole segments. Default true.
    #[serde(default = "yes")]
    pub bsd_buffer_rounding: bool,
    /// When the client opens \[s\]. Default 0.
    #[serde(default)]
    pub start_s: f64,
    /// The application on the client.
    #[serde(default, deserialize_with = "table::one")]
    pub app: AppSec,
}

/// Application driving a TCP connection.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppSec {
    /// ttcp-like greedy sender.
    Bulk {
        /// Size of each blocking write \[bytes\]. Default 65536 (MAGIC §2.2).
        #[serde(default = "write_default")]
        write_bytes: i64,
        /// Bytes to send, then close; absent = send until the end of the run.
        #[serde(default)]
        total_bytes: Option<i64>,
    },
    /// tcplib FTP conversations, back to back (apps::conversation).
    Ftp {
        /// Multiplies every FTP item size (Cáceres §7: larger bulk transfers). Default 1.
        #[serde(default = "one_f64")]
        item_scale: f64,
        /// One TCP connection per item, as tcplib's FTP data connections (default false:
        /// the whole conversation on one connection).
        #[serde(default)]
        connection_per_item: bool,
        /// An FTP session as Mah's (§3.3.2): a control connection to port 21 and a data
        /// connection per file from the server's port 20 (`[[traffic]]` only; default false).
        #[serde(default)]
        data_connections: bool,
    },
    /// tcplib NNTP conversations.
    Nntp {
        /// Multiplies every article size. Default 1.
        #[serde(default = "one_f64")]
        item_scale: f64,
    },
    /// tcplib SMTP conversations.
    Smtp {
        /// Multiplies every message size. Default 1.
        #[serde(default = "one_f64")]
        item_scale: f64,
        /// The HELO/MAIL/RCPT/DATA and QUIT exchanges around the message (default true);
        /// false = the message and the server's reply only (Mah §3.3.4; `[[traffic]]` only).
        #[serde(default = "yes")]
        handshake: bool,
    },
    /// tcplib TELNET conversations.
    Telnet {
        /// Mah §3.3.1: the client types single-byte keystrokes and the server answers each
        /// with a response of `telnet_pktsize` bytes (`[[traffic]]` only). Default false:
        /// the client writes packets of `telnet_pktsize` bytes and the server echoes them
        /// (Cáceres §2.1).
        #[serde(default)]
        keystrokes: bool,
    },
    /// A Web browser of Mah's HTTP model (App. A), placed on a workstation without one and
    /// browsing until the end of the run (`[[traffic]]` only).
    Http {},
    /// Audio over UDP (Mah §3.3.6): 64 kb/s during talkspurts of tcplib's voice tables
    /// (`[[traffic]]` only).
    Audio {
        /// UDP payload per packet \[bytes\]. Default 160 (spec A-16).
        #[serde(default = "audio_payload_default")]
        payload_bytes: i64,
        /// Time between packets in a talkspurt \[ms\]. Default 20.
        #[serde(default = "audio_interval_default")]
        interval_ms: f64,
        /// Mean of the exponential conversation duration \[s\]. Default 600.
        #[serde(default = "media_duration_default")]
        mean_duration_s: f64,
    },
    /// Video over UDP: vic's two-state model (Mah §3.3.7, App. B) (`[[traffic]]` only).
    Video {
        /// Default 128000 (§B.5).
        #[serde(default = "video_rate_default")]
        bit_rate_bps: f64,
        /// Default 8 (§B.5).
        #[serde(default = "video_fps_default")]
        frame_rate: f64,
        /// Mean of the exponential conversation duration \[s\]. Default 600.
        #[serde(default = "media_duration_default")]
        mean_duration_s: f64,
    },
}

impl AppSec {
    /// Every `kind`, as scenarios spell it, in declaration order.
    pub const KINDS: [&'static str; 8] = ["bulk", "ftp", "nntp", "smtp", "telnet", "http", "audio", "video"];
}

impl Default for AppSec {
    fn default() -> Self {
        AppSec::Bulk { write_bytes: write_default(), total_bytes: None }
    }
}

/// `[[cell_source]]`: a cell-level source on a VC.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CellSourceSec {
    pub name: String,
    /// The VC it sends on.
    pub vc: String,
    /// The end of the VC it sends from (a host on the VC's path ends).
    pub from: String,
    /// "greedy": always backlogged; "poisson": Poisson messages (Koçyiğit §III); "onoff":
    /// bursts at the link rate separated by geometric off periods.
    pub kind: CellSourceKind,
    /// Greedy: IP datagram size of its AAL5 frames \[bytes\]. Default 9180.
    #[serde(default)]
    pub frame_bytes: Option<i64>,
    /// Poisson: offered load [bit/s of 53-byte cells].
    #[serde(default)]
    pub load_bps: Option<f64>,
    /// Poisson: mean message length \[cells\] (truncated geometric). Default 25.
    /// On/off: mean burst length \[cells\] (required).
    #[serde(default)]
    pub mean_cells: Option<f64>,
    /// Poisson: longest message \[cells\]. Default 200. On/off, geometric bursts: longest
    /// burst \[cells\]. Default 1365 (the longest AAL5 frame).
    #[serde(default)]
    pub max_cells: Option<i64>,
    /// On/off: "geometric" (default) or "fixed" burst lengths.
    #[serde(default)]
    pub burst: Option<BurstSec>,
}

/// `cell_source.burst`: how an on/off source's burst lengths are drawn.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BurstSec {
    Fixed,
    Geometric,
}

/// `[[capture]]`: a pcap capture of the IP datagrams a host sends and receives
/// (see [`crate::pcap`]).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureSec {
    /// The host whose interface is captured.
    pub host: String,
    /// Name of the capture (and of its `<name>.pcap` file); default: the host's name.
    #[serde(default)]
    pub name: Option<String>,
    /// Bytes kept of each packet \[bytes\] (48 ..= 65535). Default 96: the headers.
    #[serde(default = "snaplen_default")]
    pub snaplen_bytes: i64,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CellSourceKind {
    Greedy,
    Poisson,
    #[serde(rename = "onoff")]
    OnOff,
}

fn tag() -> crate::atm::shaping::PoliceAction {
    crate::atm::shaping::PoliceAction::Tag
}
fn three() -> i64 {
    3
}

fn yes() -> bool {
    true
}
fn audio_payload_default() -> i64 {
    160
}
fn audio_interval_default() -> f64 {
    20.0
}
fn media_duration_default() -> f64 {
    600.0
}
fn video_rate_default() -> f64 {
    128e3
}
fn video_fps_default() -> f64 {
    8.0
}
fn one_f64() -> f64 {
    1.0
}
fn one_i64() -> i64 {
    1
}
fn mtu_default() -> i64 {
    9180
}
fn snaplen_default() -> i64 {
    crate::pcap::DEFAULT_SNAPLEN as i64
}
fn write_default() -> i64 {
    65536
}
