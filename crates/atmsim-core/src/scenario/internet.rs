//! The scenario sections of the IP internetwork: routers, serial lines, LANs, UDP flows, the
//! IP-over-ATM driver's policies and signalling (DESIGN §7; Mah 1996 §3.2, §3.6).
//!
//! Owns the serde model of `[[router]]`, `[[serial]]`, `[[lan]]`, `[[udp]]`, the `ipoa`
//! table of a host or router, and `[signalling]`. As in [`super::model`], units are in the
//! names, defaults are stated here, unknown fields are errors, and numbers are checked in
//! [`super::build()`]. The user-facing reference is `docs/scenario.md`.

use super::table;
use crate::atm::sched::Discipline;
use crate::iface::ipoa::{MuxPolicy, VcPolicy};
use serde::{Deserialize, Serialize};

/// `[[router]]`: an IP router. It forwards between its interfaces: at most one ATM adapter
/// (a `[[link]]` to a switch), serial lines and LANs.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RouterSec {
    pub name: String,
    /// Adapter scheduler over its VC queues: "fifo" (default), "round_robin", or a QoS
    /// discipline ("static_priority", "rcsp_wc", "rcsp_nwc"; `atm::priority`).
    #[serde(default)]
    pub scheduler: Discipline,
    /// Adapter buffer \[cells\]; absent = unlimited.
    #[serde(default)]
    pub buffer_cells: Option<i64>,
    /// ATM interface MTU \[bytes\]. Default 9180 (RFC 1626).
    #[serde(default = "mtu_default")]
    pub mtu_bytes: i64,
    /// The IP-over-ATM driver's policies; absent = the defaults of [`IpoaSec`].
    #[serde(default, deserialize_with = "table::optional")]
    pub ipoa: Option<IpoaSec>,
}

/// The `ipoa` table of a host or router: how its ATM driver maps datagrams to VCs
/// (Mah §2.5–2.6, Tables 2-2 and 2-3).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct IpoaSec {
    /// "conv" (default): a VC per conversation; "app": per application type and direction
    /// per host pair; "router": per pair of ATM nodes; "type": per application type and
    /// direction per pair of ATM nodes (Cáceres' per-type channels).
    #[serde(default)]
    pub mux: MuxPolicy,
    /// "pvc" (default): set up on first use, never torn down; "svc": torn down after
    /// `idle_timeout_s`; "svccache": unbound after `idle_timeout_s`, reusable, torn down
    /// `cache_timeout_s` after unbinding.
    #[serde(default)]
    pub vc: VcPolicy,
    /// Default 10 s (Mah Tab 2-3).
    #[serde(default)]
    pub idle_timeout_s: Option<f64>,
    /// Default 300 s (Mah §6.3).
    #[serde(default)]
    pub cache_timeout_s: Option<f64>,
    /// "pooled" (default, noqos: any cached VC to the egress matches) or "by_type" (only a
    /// VC created by the same conversation type, §6.3). A QoS policy other than noqos
    /// implies "by_type".
    #[serde(default)]
    pub class_match: ClassMatchName,
    /// QoS policy (Mah Chapter 4): "noqos" (default), or "sp-", "wc-" or "nwc-" followed by
    /// the favoured applications: telnet, ftp, http, audio, video, isp (telnet and HTTP), av
    /// (audio and video) or qos1 (all five). Not with `mux = "router"` or "type", nor with
    /// `vc = "pvc"` (Mah §2.6, §3.5.1).
    #[serde(default)]
    pub qos: Option<String>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ClassMatchName {
    #[default]
    Pooled,
    ByType,
}

impl ClassMatchName {
    pub const ALL: [ClassMatchName; 2] = [ClassMatchName::Pooled, ClassMatchName::ByType];

    /// The name scenarios give it.
    pub const fn name(self) -> &'static str {
        match self {
            ClassMatchName::Pooled => "pooled",
            ClassMatchName::ByType => "by_type",
        }
    }
}

/// `[[serial]]`: a full-duplex point-to-point line between two hosts or routers, at packet
/// level (Cáceres' 1.5 Mb/s access lines).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SerialSec {
    /// Default `"<a>-<b>"`.
    #[serde(default)]
    pub name: Option<String>,
    pub a: String,
    pub b: String,
    pub rate_bps: f64,
    /// One-way propagation delay \[ms\]. Default 0.
    #[serde(default)]
    pub delay_ms: f64,
    /// Datagrams each direction may hold (waiting + in transmission); absent = unlimited.
    #[serde(default)]
    pub buffer_packets: Option<i64>,
}

/// `[[lan]]`: a shared-medium LAN (INSANE's idealised `Lan`: one FIFO channel, no
/// collisions).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LanSec {
    pub name: String,
    /// Its stations: hosts and routers.
    pub members: Vec<String>,
    /// Default 100 Mb/s (Mah §3.2).
    #[serde(default = "lan_rate_default")]
    pub rate_bps: f64,
    /// Propagation delay \[ms\]. Default 0.01 (spec decision A-3).
    #[serde(default = "lan_delay_default")]
    pub delay_ms: f64,
    /// Datagrams the medium may hold waiting; absent = unlimited.
    #[serde(default)]
    pub buffer_packets: Option<i64>,
}

/// `[[udp]]`: a UDP flow from one host to another.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct UdpSec {
    pub name: String,
    pub from: String,
    pub to: String,
    /// Default 5004 (RTP).
    #[serde(default = "rtp_port")]
    pub src_port: i64,
    #[serde(default = "rtp_port")]
    pub dst_port: i64,
    /// RTP-like media tag the IP-over-ATM driver classifies by: "none" (default), "audio",
    /// "video".
    #[serde(default)]
    pub media: MediaName,
    /// IP datagram size, headers included \[bytes\] (at least 28).
    pub packet_bytes: i64,
    /// Time between datagrams \[ms\] (mean, if `spacing = "poisson"`).
    pub interval_ms: f64,
    /// "constant" (default) or "poisson".
    #[serde(default)]
    pub spacing: SpacingName,
    /// Default 0.
    #[serde(default)]
    pub start_s: f64,
    /// Default: the end of the run.
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// A datagram delivered later than this is counted late \[ms\]. Default 150 (Mah §3.4).
    #[serde(default = "late_default")]
    pub late_ms: f64,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MediaName {
    #[default]
    None,
    Audio,
    Video,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SpacingName {
    #[default]
    Constant,
    Poisson,
}

/// `[signalling]`: switched VCs through hop-by-hop signalling (Mah §2.2, §3.6.1). Present =
/// every switch gets a signalling controller and every ATM-attached host and router a
/// signalling agent; absent = no SVCs (a driver's setup requests fail at once).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SignallingSec {
    /// Processing time of each signalling message at each controller \[ms\]. Default 1
    /// (spec decision A-8).
    #[serde(default = "one_ms")]
    pub processing_ms: f64,
    /// VCIs per output port (the signalling VC and VCIs 0–31 included). Default 8192
    /// (Mah §6.6).
    #[serde(default = "vci_space_default")]
    pub vci_space: i64,
    /// Go-back-N window \[messages\]. Default 8.
    #[serde(default = "window_default")]
    pub window: i64,
    /// Go-back-N retransmission timeout \[ms\]. Default 200.
    #[serde(default = "rto_default")]
    pub rto_ms: f64,
    /// Control (signalling) cells each output port may hold, apart from its data buffer
    /// \[cells\]. Default 256.
    #[serde(default)]
    pub control_buffer_cells: Option<i64>,
    /// Admission control of guaranteed VCs under the `wc`/`nwc` QoS policies:
    /// `"delay_bound"` (default: the Zhang–Ferrari test) or `"none"` (every setup accepted,
    /// guarantees void: an experiment that isolates rate control from admission).
    #[serde(default)]
    pub admission: Option<String>,
}

fn mtu_default() -> i64 {
    9180
}
fn lan_rate_default() -> f64 {
    100e6
}
fn lan_delay_default() -> f64 {
    0.01
}
fn rtp_port() -> i64 {
    5004
}
fn late_default() -> f64 {
    150.0
}
fn one_ms() -> f64 {
    1.0
}
fn vci_space_default() -> i64 {
    8192
}
fn window_default() -> i64 {
    8
}
fn rto_default() -> f64 {
    200.0
}

/// `[[site]]`: a site of the internetwork in one table (Mah §3.2): `workstations` hosts
/// (`<site>-ws<i>`) and `servers` hosts (`<site>-srv<j>`) on a shared LAN (`<site>-lan`) with
/// one router (`<site>-router`), whose ATM adapter links to switch `attach`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SiteSec {
    pub name: String,
    pub workstations: i64,
    pub servers: i64,
    /// MTU of the site's hosts \[bytes\]. Default 1500 (an Ethernet-like LAN, spec A-3).
    #[serde(default = "lan_mtu_default")]
    pub host_mtu_bytes: i64,
    /// Default 100 Mb/s (Mah §3.2).
    #[serde(default = "lan_rate_default")]
    pub lan_rate_bps: f64,
    /// Default 0.01 ms.
    #[serde(default = "lan_delay_default")]
    pub lan_delay_ms: f64,
    /// The switch the router's ATM link goes to; absent = the site has no ATM link.
    #[serde(default)]
    pub attach: Option<String>,
    /// The router's ATM link: a preset or a rate, and its delay \[ms\] (default 0, A-2).
    #[serde(default)]
    pub link_preset: Option<String>,
    #[serde(default)]
    pub link_rate_bps: Option<f64>,
    #[serde(default)]
    pub link_delay_ms: f64,
    /// The router's adapter.
    #[serde(default)]
    pub router_scheduler: Discipline,
    #[serde(default)]
    pub router_buffer_cells: Option<i64>,
    #[serde(default, deserialize_with = "table::optional")]
    pub ipoa: Option<IpoaSec>,
}

/// `[[traffic]]`: a generator of conversations: at each arrival a client host of the `from`
/// sites opens a conversation to a host of `to`; a TCP connection comes from a pool and
/// returns there when the conversation ends (sessions open several; audio and video are
/// UDP flows).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TrafficSec {
    pub name: String,
    /// A tcplib conversation kind (telnet, ftp, smtp, nntp) or bulk with `total_bytes`.
    #[serde(deserialize_with = "table::one")]
    pub app: super::model::AppSec,
    /// Sites whose workstations open the conversations; empty (default) = every site.
    #[serde(default)]
    pub from: Vec<String>,
    /// "servers" (default: a server of any site, uniformly) or "workstations" (any other
    /// workstation of any site).
    #[serde(default)]
    pub to: TargetsName,
    /// "poisson" (default; exponential gaps) or "uniform" (gaps uniform on 0..2·mean).
    #[serde(default)]
    pub arrivals: ArrivalsName,
    /// One arrival process per site of `from`, each with `mean_interarrival_s`, its clients
    /// that site's hosts (Mah Table 3-2 gives rates per site). Default false: one process
    /// for all of them.
    #[serde(default)]
    pub per_site: bool,
    /// Who opens the conversations: "workstations" (default) or "servers" (Mah: SMTP, NNTP).
    #[serde(default = "workstations")]
    pub initiators: TargetsName,
    /// With `to = "servers"`: only server number `server_index` of each site (Mah A-13: s0
    /// runs FTP, s1 HTTP). Default: every server.
    #[serde(default)]
    pub server_index: Option<i64>,
    /// How the other end is picked: "uniform" (default), "zipf" (by popularity, rank i with
    /// probability ∝ 1/i, ranks in `rank_sites` order; Mah §A.5.7) or "round_robin" (each
    /// candidate in turn; news peers).
    #[serde(default)]
    pub choice: ChoiceName,
    /// Sites in order of their servers' popularity for `choice = "zipf"`; default the order
    /// of the `[[site]]` tables.
    #[serde(default)]
    pub rank_sites: Vec<String>,
    /// Only hosts of other sites (needs `per_site`). Default false.
    #[serde(default)]
    pub remote_only: bool,
    /// Mean time between conversation arrivals of this generator \[s\].
    pub mean_interarrival_s: f64,
    /// Most conversations of this generator open at once (each `per_site` generator its own);
    /// an arrival beyond it is counted as `skipped` in the summary and opens nothing. Default
    /// [`DEFAULT_MAX_OPEN`], at most [`MAX_OPEN`].
    #[serde(default = "max_open_default")]
    pub max_open: i64,
    /// Default 0.
    #[serde(default)]
    pub start_s: f64,
    /// Default: the end of the run.
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// Default 512 (4.4BSD off-subnet default, spec A-7).
    #[serde(default = "mss_default")]
    pub mss_bytes: i64,
    /// Send and receive buffers \[bytes\]. Default 8192 (4.4BSD, A-7).
    #[serde(default = "window_default_bytes")]
    pub window_bytes: i64,
    /// The connections' congestion control, as `[[tcp]]`'s. Default "reno".
    #[serde(default)]
    pub variant: crate::transport::tcp::Variant,
    /// SACK, as `[[tcp]]`'s. Default false.
    #[serde(default)]
    pub sack: bool,
    /// RFC 7323 timestamps, as `[[tcp]]`'s. Default false.
    #[serde(default)]
    pub timestamps: bool,
    /// HyStart++, as `[[tcp]]`'s. Default false.
    #[serde(default)]
    pub hystart: bool,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TargetsName {
    #[default]
    Servers,
    Workstations,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ChoiceName {
    #[default]
    Uniform,
    Zipf,
    RoundRobin,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ArrivalsName {
    #[default]
    Poisson,
    Uniform,
}

/// Default of `traffic.max_open`: far above what the studies' workloads keep open (Mah's
/// busiest generator, 1 s mean arrivals of minutes-long conversations, a few hundred), and at
/// about 2 KB per idle pooled connection (docs/performance.md) some 20 MB per generator.
pub const DEFAULT_MAX_OPEN: i64 = 10_000;
/// Largest `traffic.max_open`.
pub const MAX_OPEN: i64 = 1_000_000;

fn max_open_default() -> i64 {
    DEFAULT_MAX_OPEN
}

fn workstations() -> TargetsName {
    TargetsName::Workstations
}
fn lan_mtu_default() -> i64 {
    1500
}
fn mss_default() -> i64 {
    512
}
fn window_default_bytes() -> i64 {
    8192
}
